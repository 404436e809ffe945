import Loom
import Testing

/// The seeds' `@Generable` samples compile against `import Loom` (the files beside this one);
/// these checks make sure the compiled types are the ones the samples describe.
@Suite struct SeedSampleTests {
    @Test func bookTagsAsksForThreeToEightTags() throws {
        let tags = try #require(BookTags.generationSchema.jsonSchema["properties"]?["tags"])
        #expect(tags["minItems"] == 3)
        #expect(tags["maxItems"] == 8)
        #expect(tags["description"]?.stringValue?.hasPrefix("Descriptive tags") == true)
        // Codable and Generable agree on the shape of a value.
        let value = BookTags(tags: ["a", "b", "c"])
        #expect(try BookTags(value.generatedContent) == value)
    }

    @Test func theSeedTypesKeepTheirPropertiesInOrder() {
        #expect(StrictProbe.generationSchema.jsonSchema["properties"]?.objectValue?.keys == ["answer", "status"])
        #expect(ContactDraft.generationSchema.jsonSchema["properties"]?.objectValue?.keys == ["name", "email"])
        #expect(Recommendation.generationSchema.jsonSchema["properties"]?.objectValue?.keys
            == ["attraction", "neighborhood", "tip"])
    }
}
