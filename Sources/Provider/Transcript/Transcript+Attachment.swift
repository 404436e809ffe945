import Foundation

extension Transcript {
    /// Non-text content inside an entry (currently images).
    public struct AttachmentSegment: Sendable, Identifiable, Equatable, Codable {
        /// A stable id within the entry; keep the segment to remove it later.
        public var id: String
        /// The attachment.
        public var content: Attachment
        /// An optional caption or alt text.
        public var label: String?

        /// Builds an attachment segment.
        public init(id: String = UUID().uuidString, content: Attachment, label: String? = nil) {
            self.id = id
            self.content = content
            self.label = label
        }
    }

    /// Attachment content. Non-frozen: designed to grow to other media types.
    public enum Attachment: Sendable, Equatable, Codable {
        /// An image.
        case image(ImageAttachment)
    }

    /// An image, referenced by URL on Linux (a `file:` URL, an `https:` URL, or a `data:` URL).
    public struct ImageAttachment: Sendable, Equatable, Codable {
        /// Where the image is.
        public var url: URL?

        /// An image at `url`.
        public init(_ url: URL) { self.url = url }

        /// An image at `url`.
        public init(url: URL) { self.url = url }
    }
}

extension Transcript.ImageAttachment: PromptRepresentable {
    /// The image as a prompt segment (needs a model declaring `.vision`).
    public var promptRepresentation: Prompt {
        Prompt(segments: [.attachment(Transcript.AttachmentSegment(content: .image(self)))])
    }
}
