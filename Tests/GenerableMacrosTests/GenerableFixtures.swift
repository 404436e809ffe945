import GenerableMacros

// The `@Generable` types the suites check, one per rule of docs/generable-macros.md.

/// Property order, descriptions, optionals, and the members the struct rules leave out.
@Generable(description: "A person")
struct Person: Equatable {
    @Guide(description: "Full name")
    var name: String
    @Guide(description: "Age in years", .range(0...120))
    var age: Int
    var nickname: String?
    var isMember: Bool
    static let species = "human"
    let kind = "person"
    var shout: String { name.uppercased() }
}

/// Every guide Apple's documentation uses, each on a property of its type.
@Generable
struct GuideCatalogue: Equatable {
    @Guide(.range(1...10)) var rating: Int
    @Guide(.minimum(0.5), .maximum(9.5)) var score: Double
    @Guide(.minimum(-3)) var floor: Int
    @Guide(.range(0...1)) var ratio: Float
    @Guide(.count(3)) var three: [String]
    @Guide(.count(1...4)) var some: [Int]
    @Guide(.minimumCount(1), .maximumCount(5)) var bounded: [Double]
    @Guide(.pattern("^[a-z]+$")) var word: String
    @Guide(description: "A zip code", /[0-9]{5}/) var zip: String
    @Guide(.anyOf(["red", "green"])) var colour: String
    @Guide(.constant("v1")) var version: String
    @Guide(.element(.range(1...6))) var dice: [Int]
    @Guide(.count(2), .element(.anyOf(["a", "b"]))) var letters: [String]
}

/// A string enum.
@Generable(description: "How it feels")
enum Mood: Equatable {
    case happy, sad
}

/// A string enum whose string raw values are what the model writes.
@Generable
enum Size: String, Equatable {
    case small = "S"
    case large = "L"
}

/// An enum with associated values: labelled, unlabelled, optional, and none.
@Generable
enum Action: Equatable {
    case move(x: Int, y: Int)
    case say(String)
    case wait(seconds: Double?)
    case stop
}

/// A nested type's schema, inline.
@Generable
struct Item: Equatable {
    @Guide(description: "What it is")
    var name: String
    var quantity: Int
}

/// Nested structs, arrays of them, enums and optional nested values.
@Generable
struct Order: Equatable {
    @Guide(description: "The main item")
    var item: Item
    @Guide(.maximumCount(3))
    var extras: [Item]
    @Guide(description: "The customer's mood")
    var mood: Mood
    var size: Size
    var next: Action?
}

/// A public type: its conformance's members are public too.
@Generable
public struct PublicNote: Equatable {
    public var text: String
    public init(text: String) { self.text = text }
}
