// Seed 001 fragments (request inspection, errors, attachments, plan limits), each wrapped in
// a function so it compiles as a unit; the statements are the seed's own.

import Foundation
import Provider

func seedSampleInspectSamplingMode(_ request: LanguageModelExecutorGenerationRequest) -> ProviderRequestBody {
  var providerRequest = ProviderRequestBody()
  // generationOptions.samplingMode — translate to your provider's sampling knobs.
  if let mode = request.generationOptions.samplingMode {
    switch mode.kind {
    case .greedy:
      providerRequest.temperature = 0 // deterministic
    case .randomTopK(let k, let seed):
      providerRequest.topK = k
      providerRequest.seed = seed
    case .randomProbabilityThreshold(let p, let seed):
      providerRequest.topP = p
      providerRequest.seed = seed
    }
  }
  return providerRequest
}

func seedSampleRequestFields(_ request: LanguageModelExecutorGenerationRequest) throws -> [String] {
  let encoder = JSONEncoder()
  var out: [String] = [request.id.uuidString]
  for entry in request.transcript.entries { out.append(entry.id) }
  for tool in request.enabledToolDefinitions {
    out.append(String(decoding: try encoder.encode(tool.parameters), as: UTF8.self))
  }
  if let schema = request.schema { out.append(String(decoding: try encoder.encode(schema), as: UTF8.self)) }
  if let level = request.contextOptions.reasoningLevel { out.append("\(level)") }
  if request.contextOptions.includeSchemaInPrompt == true { out.append("inline") }
  out.append("\(request.generationOptions.temperature ?? -1)")
  out.append("\(request.generationOptions.maximumResponseTokens ?? -1)")
  out.append("\(request.metadata.count)")
  return out
}

func seedSampleThrow(_ which: Int, offendingEntries: [Transcript.Entry]) throws {
  switch which {
  case 0:
    throw LanguageModelError.contextSizeExceeded(
      LanguageModelError.ContextSizeExceeded(
        contextSize: 200_000,
        tokenCount: 220_000,
        debugDescription: "Prompt exceeds context window"
      )
    )
  case 1:
    throw LanguageModelError.rateLimited(
      LanguageModelError.RateLimited(
        resetDate: Date().addingTimeInterval(60),
        debugDescription: "HTTP 429"
      )
    )
  case 2:
    throw LanguageModelError.guardrailViolation(
      LanguageModelError.GuardrailViolation(debugDescription: "Provider reported unsafe content")
    )
  case 3:
    throw LanguageModelError.unsupportedCapability(
      LanguageModelError.UnsupportedCapability(
        capability: .vision,
        debugDescription: "Provider rejected an image segment mid-stream"
      )
    )
  case 4:
    throw LanguageModelError.unsupportedTranscriptContent(
      LanguageModelError.UnsupportedTranscriptContent(
        unsupportedContent: offendingEntries,
        debugDescription: "Provider could not decode the supplied image data"
      )
    )
  case 5:
    throw LanguageModelError.unsupportedGenerationGuide(
      LanguageModelError.UnsupportedGenerationGuide(
        schemaName: "ItineraryDay",
        debugDescription: "Regex anchors are not supported by this model"
      )
    )
  case 6:
    throw LanguageModelError.unsupportedLanguageOrLocale(
      LanguageModelError.UnsupportedLanguageOrLocale(
        languageCode: Locale.LanguageCode("xx"),
        debugDescription: "Model does not support this language"
      )
    )
  default:
    throw LanguageModelError.timeout(
      LanguageModelError.Timeout(debugDescription: "Request did not complete within configured timeout")
    )
  }
}

public enum MyServiceError: Error, LocalizedError {
  case planLimitReached(upgradeURL: URL?)

  public var errorDescription: String? {
    switch self {
    case .planLimitReached: "Your plan limit has been reached."
    }
  }
}

func seedSampleAttachment(channel: LanguageModelExecutorGenerationChannel, responseEntryID: String) async {
  let attachment = Transcript.AttachmentSegment(
    id: imageID,                                              // stable id you mint
    content: .image(Transcript.ImageAttachment(cgImage)),     // CGImage / CIImage / CVPixelBuffer / URL
    label: "Generated diagram"                                // optional caption / alt text
  )

  await channel.send(
    .response(entryID: responseEntryID, action: .addAttachmentSegment(attachment))
  )

  await channel.send(
    .response(entryID: responseEntryID, action: .removeAttachmentSegment(attachment))
  )
}

func seedSampleCapabilityCheck(_ capabilities: LanguageModelCapabilities) -> [LanguageModelCapabilities.Capability] {
  [.toolCalling, .vision, .reasoning, .guidedGeneration].filter { capabilities.contains($0) }
}
