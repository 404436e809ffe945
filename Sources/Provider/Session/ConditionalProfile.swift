/// One of two profiles, as chosen by an `if`/`else` in a profile's body.
public struct ConditionalProfile<TrueContent: DynamicProfile, FalseContent: DynamicProfile>: DynamicProfile {
    enum Choice: Sendable {
        case first(TrueContent)
        case second(FalseContent)
    }
    let choice: Choice

    /// Never called: a choice resolves to its active branch.
    public var body: Never { fatalError("ConditionalProfile has no body") }

    /// Resolves the active branch.
    public func _resolve(into resolution: inout DynamicProfileResolution) {
        switch choice {
        case .first(let content): content._resolve(into: &resolution)
        case .second(let content): content._resolve(into: &resolution)
        }
    }
}
