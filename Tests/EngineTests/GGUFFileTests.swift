import Engine
import Testing

@Suite struct GGUFFileTests {
    @Test func readsStories260K() throws {
        let file = try GGUFFile(path: SharedData.path("models/stories260K.gguf"))
        #expect(file.version == 3)
        #expect(file.metadata["general.architecture"]?.stringValue == "llama")
        #expect(file.tensor(named: "token_embd.weight") != nil)
    }

    @Test func rejectsWrongMagic() throws {
        let path = try SharedData.temporaryFile(bytes: Array("NOPE0000".utf8))
        #expect(throws: ModelLoadError.badMagic(found: 0x45504F4E)) { try GGUFFile(path: path) }
    }
}
