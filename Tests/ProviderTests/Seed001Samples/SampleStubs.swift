// The helpers seed 001's samples assume but never define, as the smallest honest stand-ins:
// an in-memory OAuth session, a scripted provider stream, and the request body the
// sampling-mode sample fills in. Not part of Provider.

import Foundation
import LoomSupport
import Provider

/// A provider's stream event, with exactly the cases the executor sample switches over.
enum ProviderEvent: Sendable {
  case textDelta(String)
  case toolCallStart(id: String, name: String)
  case toolCallArgsDelta(id: String, name: String, args: String)
  case toolCallRetracted(Transcript.ToolCall)
  case reasoningDelta(String)
  case reasoningSignature(Data)
  case usage(prompt: Int, cached: Int, completion: Int, reasoning: Int)
  case done
}

/// Scripted transport: tests set the events the next stream replays.
final class StubbedTransport: Sendable {
  static let shared = StubbedTransport()
  private let scripted = Locked<[ProviderEvent]>([])
  private let lastRequest = Locked<LanguageModelExecutorGenerationRequest?>(nil)

  func respond(with events: [ProviderEvent]) { scripted.withLock { $0 = events } }
  func events(for request: LanguageModelExecutorGenerationRequest) -> [ProviderEvent] {
    lastRequest.withLock { $0 = request }
    return scripted.withLock { $0 }
  }
  var request: LanguageModelExecutorGenerationRequest? { lastRequest.withLock { $0 } }
}

func openProviderStream(for request: LanguageModelExecutorGenerationRequest) -> AsyncThrowingStream<ProviderEvent, any Error> {
  let events = StubbedTransport.shared.events(for: request)
  return AsyncThrowingStream { continuation in
    for event in events { continuation.yield(event) }
    continuation.finish()
  }
}

/// An in-memory account store standing in for the browser/Keychain flow.
final class OAuthSession: Sendable {
  static let shared = OAuthSession()
  let accountID = "account-1"
  private let token = Locked<String?>(nil)

  func currentAccessToken() async throws -> String? { token.withLock { $0 } }
  func runOAuthFlow() async throws { token.withLock { $0 = "token" } }
  func authenticateIfNeeded() async throws {
    if try await currentAccessToken() == nil { try await runOAuthFlow() }
  }
}

/// The provider request body the sampling-mode sample writes into.
struct ProviderRequestBody {
  var temperature: Double?
  var topK: Int?
  var topP: Double?
  var seed: UInt64?
}

extension URL {
  static let testBase = URL(string: "https://api.example.com")!
}

/// Linux has no CGImage: the attachment sample's image is a URL.
let cgImage = URL(fileURLWithPath: "/tmp/diagram.png")
let imageID = "diagram-1"

/// The request-builder sample's function under test: transcript → chat messages.
struct ProviderMessage { var role: String; var text: String }
struct ProviderChatBody { var model: String; var messages: [ProviderMessage] }

func buildProviderRequest(from transcript: Transcript, modelID: String) throws -> ProviderChatBody {
  func joined(_ segments: [Transcript.Segment]) -> String {
    segments.compactMap { if case .text(let t) = $0 { return t.content }; return nil }.joined()
  }
  var messages: [ProviderMessage] = []
  for entry in transcript.entries {
    switch entry {
    case .instructions(let i): messages.append(ProviderMessage(role: "system", text: joined(i.segments)))
    case .prompt(let p): messages.append(ProviderMessage(role: "user", text: joined(p.segments)))
    case .response(let r): messages.append(ProviderMessage(role: "assistant", text: joined(r.segments)))
    case .toolCalls(let t): messages.append(ProviderMessage(role: "assistant", text: t.map(\.arguments.jsonString).joined()))
    case .toolOutput(let o): messages.append(ProviderMessage(role: "tool", text: joined(o.segments)))
    case .reasoning: continue
    }
  }
  return ProviderChatBody(model: modelID, messages: messages)
}

/// The event-translator sample's translator, written against the real channel.
struct MyEventTranslator {
  let responseEntryID: String
  let toolCallsEntryID: String
  let channel: RecordingChannel

  func translate(_ event: ProviderEvent) async {
    if case .textDelta(let text) = event {
      await channel.channel.send(.response(entryID: responseEntryID, action: .appendText(text, tokenCount: 1)))
    }
  }
}
