#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Every subcommand, in the order `loom --help` lists them.
enum LoomCommands {
    static let all: [any LoomCommand.Type] = [
        InspectCommand.self,
        TokenizeCommand.self,
        DetokenizeCommand.self,
        GenerateCommand.self,
        LogitsCommand.self,
        TemplateCommand.self,
        GrammarCommand.self,
        BenchCommand.self,
        RunCommand.self,
        ChatCommand.self,
        ServeCommand.self,
    ]
}

func printTopLevelUsage(to error: Bool) {
    var text = "usage: loom <command> [options]\n\ncommands:\n"
    for c in LoomCommands.all {
        text += "  " + c.name.padding(12) + c.summary + "\n"
    }
    text += "\nRun 'loom <command> --help' for a command's options.\n"
    if error { StandardError.write(text) } else { StandardOutput.write(text) }
}

extension String {
    /// Left-justified in a column of `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}

let argv = Array(CommandLine.arguments.dropFirst())
guard let commandName = argv.first else {
    printTopLevelUsage(to: true)
    exit(2)
}
if commandName == "--help" || commandName == "-h" || commandName == "help" {
    printTopLevelUsage(to: false)
    exit(0)
}
guard let command = LoomCommands.all.first(where: { $0.name == commandName }) else {
    StandardError.line("loom: unknown command '\(commandName)'")
    printTopLevelUsage(to: true)
    exit(2)
}
let rest = Array(argv.dropFirst())
if rest.contains("--help") || rest.contains("-h") {
    StandardOutput.write(command.usage)
    exit(0)
}
do {
    try await command.run(rest)
    StandardOutput.flush()
    exit(0)
} catch let error as UsageError {
    StandardError.line(ErrorReport.line(command: command.name, error))
    StandardError.write(command.usage)
    exit(2)
} catch {
    StandardOutput.flush()
    StandardError.line(ErrorReport.line(command: command.name, error))
    exit(1)
}
