import LoomJSON
import Provider
import Testing

/// `generatedContent` and `init(_:)` invert each other, and the content follows the schema's shape.
@Suite struct GenerableRoundTripTests {
    static let order = Order(
        item: Item(name: "tea", quantity: 2), extras: [Item(name: "lemon", quantity: 1)], mood: .happy, size: .large,
        next: .move(x: 1, y: -2))

    @Test func aStructRoundTrips() throws {
        let person = Person(name: "Ada", age: 36, nickname: nil, isMember: true)
        let content = person.generatedContent
        // A nil optional is left out (the schema does not allow null); members follow declaration order.
        #expect(content.jsonString == #"{"name":"Ada","age":36,"isMember":true}"#)
        #expect(try Person(content) == person)
        let named = Person(name: "Bo", age: 5, nickname: "B", isMember: false)
        #expect(try Person(named.generatedContent) == named)
    }

    @Test func nestedTypesAndEnumsRoundTrip() throws {
        let content = Self.order.generatedContent
        #expect(content.jsonString
            == #"{"item":{"name":"tea","quantity":2},"extras":[{"name":"lemon","quantity":1}],"mood":"happy","size":"L","next":{"move":{"x":1,"y":-2}}}"#)
        #expect(try Order(content) == Self.order)
    }

    @Test(arguments: [Action.move(x: 3, y: 4), .say("hi"), .wait(seconds: 1.5), .wait(seconds: nil), .stop])
    func everyEnumCaseRoundTrips(_ action: Action) throws {
        #expect(try Action(action.generatedContent) == action)
    }

    @Test func enumCasesHaveTheCodableShape() throws {
        #expect(Action.say("hi").generatedContent.jsonString == #"{"say":{"_0":"hi"}}"#)
        #expect(Action.stop.generatedContent.jsonString == #"{"stop":{}}"#)
        #expect(Action.wait(seconds: nil).generatedContent.jsonString == #"{"wait":{}}"#)
        #expect(Size.small.generatedContent.jsonString == #""S""#)
    }

    @Test func contentThatIsNotTheTypeThrowsParsingError() throws {
        #expect(throws: GeneratedContent.ParsingError.self) { try Mood(GeneratedContent(json: #""angry""#)) }
        #expect(throws: GeneratedContent.ParsingError.self) { try Action(GeneratedContent(json: #"{"jump":{}}"#)) }
        #expect(throws: GeneratedContent.ParsingError.self) { try Person(GeneratedContent(json: #"{"name":"Ada"}"#)) }
    }

    @Test func publicTypesConform() throws {
        #expect(try PublicNote(PublicNote(text: "x").generatedContent) == PublicNote(text: "x"))
    }
}
