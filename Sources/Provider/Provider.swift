// Provider: the Foundation Models session protocol surface for Linux, and LocalLanguageModel.
@_exported import LoomJSON
