import Loom

/// A short city trip, generated under its own schema: every field is guaranteed to be there,
/// in this order, within its guides.
@Generable(description: "A day-by-day plan for a short city trip")
struct Itinerary {
    @Guide(description: "A short, catchy title for the trip")
    var title: String

    @Guide(description: "The city the trip is in")
    var destination: String

    @Guide(description: "One plan for each day of the trip", .count(2))
    var days: [DayPlan]
}

/// One day of an itinerary.
@Generable
struct DayPlan {
    @Guide(description: "What the day is about, in a few words")
    var theme: String

    @Guide(description: "Places to visit or things to do", .count(2))
    var activities: [String]

    var pace: Pace
}

/// How full a day is.
@Generable
enum Pace {
    case relaxed
    case moderate
    case busy
}

/// What to bring.
@Generable
struct PackingList {
    @Guide(description: "Items to pack", .count(3))
    var items: [String]

    @Guide(description: "How many bags the traveller needs", .range(1...3))
    var bags: Int
}
