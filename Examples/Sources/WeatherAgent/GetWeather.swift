import Foundation
import Loom

/// A tool the model can call: the session offers it, the model's call is generated under a
/// grammar (so `city` is always a string and the name always `getWeather`), the session runs
/// `call` and feeds the result back for the final answer.
struct GetWeather: Tool {
    let name = "getWeather"
    let description = "Returns the current weather in a city."

    /// The arguments the model generates. Without the `@Generable` macro, the schema is written
    /// out; decoding comes from `Codable`.
    struct Arguments: Codable, Generable {
        var city: String

        static var generationSchema: GenerationSchema {
            GenerationSchema(type: Arguments.self, description: "Which city", properties: [
                .init(name: "city", description: "The city's name, e.g. Paris", type: String.self),
            ])
        }
    }

    /// A fixed table stands in for a weather service, so the example runs offline.
    func call(arguments: Arguments) async throws -> String {
        let table: [String: (Double, String)] = [
            "paris": (18, "light rain"), "london": (14, "overcast"), "tokyo": (24, "sunny"),
            "new york": (21, "clear"), "lisbon": (26, "sunny"), "oslo": (9, "windy"),
        ]
        let key = arguments.city.lowercased().trimmingCharacters(in: .whitespaces)
        guard let (celsius, sky) = table[key] else {
            return "No weather data for \(arguments.city)."
        }
        return "\(arguments.city): \(Int(celsius)) °C, \(sky)."
    }
}
