import Loom

/// Plans on one model and helps with packing on another: the profile resolves to one `Profile`
/// at a time, and the conversation's transcript carries over when the model changes.
struct TripProfile: DynamicProfile {
    enum Stage {
        case planning
        case packing
    }

    var stage: Stage
    var plannerModel: any LanguageModel
    var packingModel: any LanguageModel

    var body: some DynamicProfile {
        if stage == .planning {
            Profile {
                Instructions { "You are a travel agent. You plan short, realistic city trips." }
            }
            .model(plannerModel)
        } else {
            Profile {
                Instructions { "You help travellers pack light for the trip you planned together." }
            }
            .model(packingModel)
        }
    }
}
