// Every file of this target sees the shared test locators (../shared).
@_exported import LoomTestSupport
