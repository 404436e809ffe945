/// Builds a profile's `body`: one profile, or a choice between profiles with `if`/`else`.
@resultBuilder
public enum DynamicProfileBuilder {
    /// The body's one profile.
    public static func buildBlock<Content: DynamicProfile>(_ content: Content) -> Content { content }

    /// The `if` branch of a choice.
    public static func buildEither<TrueContent: DynamicProfile, FalseContent: DynamicProfile>(
        first content: TrueContent
    ) -> ConditionalProfile<TrueContent, FalseContent> {
        ConditionalProfile(choice: .first(content))
    }

    /// The `else` branch of a choice.
    public static func buildEither<TrueContent: DynamicProfile, FalseContent: DynamicProfile>(
        second content: FalseContent
    ) -> ConditionalProfile<TrueContent, FalseContent> {
        ConditionalProfile(choice: .second(content))
    }

    /// An `if` without `else`: when false, the profile sets nothing.
    public static func buildOptional<Content: DynamicProfile>(_ content: Content?) -> ConditionalProfile<Content, Profile> {
        content.map { ConditionalProfile(choice: .first($0)) } ?? ConditionalProfile(choice: .second(Profile()))
    }

    /// A profile used under `if #available`.
    public static func buildLimitedAvailability<Content: DynamicProfile>(_ content: Content) -> Content { content }
}
