import LoomJSON

/// A constraint on generated values, applied as JSON Schema keywords.
public struct GenerationGuide<Value>: Sendable {
    let keywords: [(String, JSONValue)]

    init(_ keywords: [(String, JSONValue)]) { self.keywords = keywords }
}

enum GenerationGuideKeywords {
    /// Applies one keyword; `items` guides merge into the existing item schema.
    static func apply(_ key: String, _ value: JSONValue, to object: inout JSONObject) {
        if key == "items", case .object(let guide) = value, case .object(var items)? = object["items"] {
            for (k, v) in guide { items[k] = v }
            object["items"] = .object(items)
        } else {
            object[key] = value
        }
    }
}

extension GenerationGuide where Value == String {
    /// Exactly `value`.
    public static func constant(_ value: String) -> GenerationGuide<String> { .init([("const", .string(value))]) }
    /// One of `values`.
    public static func anyOf(_ values: [String]) -> GenerationGuide<String> {
        .init([("enum", .array(values.map { .string($0) }))])
    }
    /// Matches the regular expression `pattern` (ECMA-262 syntax, as JSON Schema specifies).
    public static func pattern(_ pattern: String) -> GenerationGuide<String> { .init([("pattern", .string(pattern))]) }
}

extension GenerationGuide where Value == Int {
    /// At least `value`.
    public static func minimum(_ value: Int) -> GenerationGuide<Int> { .init([("minimum", .number(JSONNumber(value)))]) }
    /// At most `value`.
    public static func maximum(_ value: Int) -> GenerationGuide<Int> { .init([("maximum", .number(JSONNumber(value)))]) }
    /// Within `range`.
    public static func range(_ range: ClosedRange<Int>) -> GenerationGuide<Int> {
        .init([("minimum", .number(JSONNumber(range.lowerBound))), ("maximum", .number(JSONNumber(range.upperBound)))])
    }
}

extension GenerationGuide where Value == Double {
    /// At least `value`.
    public static func minimum(_ value: Double) -> GenerationGuide<Double> { .init([("minimum", .number(JSONNumber(value)))]) }
    /// At most `value`.
    public static func maximum(_ value: Double) -> GenerationGuide<Double> { .init([("maximum", .number(JSONNumber(value)))]) }
    /// Within `range`.
    public static func range(_ range: ClosedRange<Double>) -> GenerationGuide<Double> {
        .init([("minimum", .number(JSONNumber(range.lowerBound))), ("maximum", .number(JSONNumber(range.upperBound)))])
    }
}

extension GenerationGuide where Value == Float {
    /// At least `value`.
    public static func minimum(_ value: Float) -> GenerationGuide<Float> { .init([("minimum", .number(JSONNumber(Double(value))))]) }
    /// At most `value`.
    public static func maximum(_ value: Float) -> GenerationGuide<Float> { .init([("maximum", .number(JSONNumber(Double(value))))]) }
    /// Within `range`.
    public static func range(_ range: ClosedRange<Float>) -> GenerationGuide<Float> {
        .init([("minimum", .number(JSONNumber(Double(range.lowerBound)))),
               ("maximum", .number(JSONNumber(Double(range.upperBound))))])
    }
}

extension GenerationGuide {
    /// Exactly `count` elements.
    public static func count<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        .init([("minItems", .number(JSONNumber(count))), ("maxItems", .number(JSONNumber(count)))])
    }
    /// Between `range.lowerBound` and `range.upperBound` elements.
    public static func count<Element>(_ range: ClosedRange<Int>) -> GenerationGuide<[Element]> where Value == [Element] {
        .init([("minItems", .number(JSONNumber(range.lowerBound))), ("maxItems", .number(JSONNumber(range.upperBound)))])
    }
    /// At least `count` elements.
    public static func minimumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        .init([("minItems", .number(JSONNumber(count)))])
    }
    /// At most `count` elements.
    public static func maximumCount<Element>(_ count: Int) -> GenerationGuide<[Element]> where Value == [Element] {
        .init([("maxItems", .number(JSONNumber(count)))])
    }
    /// Applies `guide` to every element.
    public static func element<Element>(_ guide: GenerationGuide<Element>) -> GenerationGuide<[Element]> where Value == [Element] {
        .init([("items", .object(JSONObject(guide.keywords)))])
    }
}

// An `@Guide(…)` attribute is type-checked on its own, before the macro sees which property it
// annotates, so `.count(3)` there has no element type to infer. These overloads give the
// attribute one answer; `@Generable`'s expansion re-checks the same expression against the
// property's real type, where the generic overloads above apply.
extension GenerationGuide where Value == [Never] {
    /// Exactly `count` elements (the overload an `@Guide` attribute resolves to).
    public static func count(_ count: Int) -> GenerationGuide<[Never]> {
        .init([("minItems", .number(JSONNumber(count))), ("maxItems", .number(JSONNumber(count)))])
    }
    /// Between `range.lowerBound` and `range.upperBound` elements (the overload an `@Guide` attribute resolves to).
    public static func count(_ range: ClosedRange<Int>) -> GenerationGuide<[Never]> {
        .init([("minItems", .number(JSONNumber(range.lowerBound))), ("maxItems", .number(JSONNumber(range.upperBound)))])
    }
    /// At least `count` elements (the overload an `@Guide` attribute resolves to).
    public static func minimumCount(_ count: Int) -> GenerationGuide<[Never]> {
        .init([("minItems", .number(JSONNumber(count)))])
    }
    /// At most `count` elements (the overload an `@Guide` attribute resolves to).
    public static func maximumCount(_ count: Int) -> GenerationGuide<[Never]> {
        .init([("maxItems", .number(JSONNumber(count)))])
    }
}
