import Foundation
import LocalBackend
import Provider
import Testing

/// The Linux stand-in for Apple's system model, without loading any weights: where it looks for
/// the default model, how availability reads a missing or unusable file, and the error a request
/// gets when there is no model.
@Suite struct SystemLanguageModelTests {
    @Test func theDefaultModelIsTheConfiguredPath() {
        let system = SystemLanguageModel.default
        #expect(system.localModel?.url.path == URL(fileURLWithPath: SystemLanguageModel.configuredModelPath).path)
        #expect(system.useCase == .general)
        #expect(system.contextSize == LocalLanguageModel.defaultContextSize)
        #expect(system.supportsLocale())
    }

    @Test func availabilitySaysWhyThereIsNoModel() throws {
        #expect(SystemLanguageModel(localModel: nil).availability == .unavailable(.modelNotReady))
        let missing = SystemLanguageModel(localModel: LocalLanguageModel(path: "/nonexistent/model.gguf"))
        #expect(missing.availability == .unavailable(.modelNotReady))
        #expect(!missing.isAvailable)
        let notAModel = try SharedData.temporaryFile(bytes: Array("not a GGUF file".utf8))
        defer { try? FileManager.default.removeItem(atPath: notAModel) }
        #expect(SystemLanguageModel(localModel: LocalLanguageModel(path: notAModel)).availability == .unavailable(.deviceNotEligible))
    }

    @Test func anExhaustiveAvailabilitySwitchCompiles() {
        func describe(_ availability: SystemLanguageModel.Availability) -> String {
            switch availability {
            case .available: "available"
            case .unavailable(.deviceNotEligible): "device"
            case .unavailable(.appleIntelligenceNotEnabled): "setting"
            case .unavailable(.modelNotReady): "not ready"
            }
        }
        #expect(describe(SystemLanguageModel(localModel: nil).availability) == "not ready")
    }

    @Test func aRequestWithoutAModelThrowsAssetsUnavailable() async throws {
        let session = LanguageModelSession(model: SystemLanguageModel(localModel: LocalLanguageModel(path: "/nonexistent/model.gguf")))
        let error = await #expect(throws: SystemLanguageModel.Error.self) { try await session.respond(to: "Hi") }
        if case .assetsUnavailable(let payload)? = error {
            #expect(payload.debugDescription.contains("/nonexistent/model.gguf"))
        } else {
            Issue.record("expected assetsUnavailable, got \(String(describing: error))")
        }
        #expect(session.transcript.isEmpty)
    }

    @Test func sessionsWithoutAModelArgumentRunOnTheSystemModel() {
        // Apple's spellings compile and build sessions (nothing loads until a request).
        _ = LanguageModelSession()
        _ = LanguageModelSession(instructions: "Be brief.")
        _ = LanguageModelSession(tools: []) { "Be brief." }
        let restored = LanguageModelSession(transcript: Transcript(entries: [.prompt(.init(segments: []))]))
        #expect(restored.transcript.count == 1)
    }

    @Test func localErrorsDescribeThemselvesThroughLocalizedError() {
        let error: any Error = LocalLanguageModelError.invalidConfiguration("threads must be positive")
        #expect(error.localizedDescription == "invalid configuration: threads must be positive")
    }
}
