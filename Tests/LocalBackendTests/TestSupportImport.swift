// Every file of this target sees the shared test locators (../shared, the default model).
@_exported import LoomTestSupport
