import Provider
import Testing

/// The `PartiallyGenerated` mirror reads each field of a snapshot as soon as it is a value.
@Suite struct GenerablePartialTests {
    static func partial(_ text: String) throws -> GeneratedContent {
        try #require(try GeneratedContent(partialJSON: text))
    }

    @Test func fieldsAppearAsTheyAreGenerated() throws {
        let start = try Person.PartiallyGenerated(Self.partial("{"))
        #expect(start.name == nil && start.age == nil && start.nickname == nil && start.isMember == nil)

        let named = try Person.PartiallyGenerated(Self.partial(#"{"name":"Ad"#))
        #expect(named.name == "Ad")
        #expect(named.age == nil)

        let aged = try Person.PartiallyGenerated(Self.partial(#"{"name":"Ada","age":36,"isMem"#))
        #expect(aged.name == "Ada")
        #expect(aged.age == 36)
        #expect(aged.isMember == nil)
    }

    @Test func nestedMirrorsAreTypedToo() throws {
        let snapshot = try Order.PartiallyGenerated(Self.partial(#"{"item":{"name":"te"},"extras":[{"name":"lem"#))
        let item: Item.PartiallyGenerated? = snapshot.item
        #expect(item?.name == "te")
        #expect(item?.quantity == nil)
        let extras: [Item.PartiallyGenerated]? = snapshot.extras
        #expect(extras?.count == 1)
        #expect(extras?.first?.name == "lem")
        #expect(snapshot.mood == nil)
    }

    @Test func anEnumFieldStaysNilUntilItIsACase() throws {
        #expect(try Order.PartiallyGenerated(Self.partial(#"{"mood":"hap"#)).mood == nil)
        #expect(try Order.PartiallyGenerated(Self.partial(#"{"mood":"happy""#)).mood == .happy)
    }

    @Test func aSnapshotThatIsNotAnObjectIsRefused() throws {
        #expect(throws: GeneratedContent.ParsingError.self) { try Person.PartiallyGenerated(GeneratedContent(json: "[]")) }
    }
}
