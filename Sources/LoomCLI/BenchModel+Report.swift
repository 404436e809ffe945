import CTensor
import Engine
import LoomJSON
#if canImport(Glibc)
import Glibc
#endif

/// What `loom bench` prints: the rates of each measurement beside what the machine and the model
/// allow (weight bytes per token against the read bandwidth).
extension BenchModel {
    /// Figures about the model and the machine, measured after the repetitions.
    struct MachineFigures {
        /// Bytes a decoded token reads: every weight once, except the embedding table (one row)
        /// unless it doubles as the output head.
        let weightBytes: Int
        let peakRSS: Double
        let bandwidth: Double
        let isa: String
        let blas: String
        /// Bytes one position takes in the KV cache: keys and values, every layer, at the run's type.
        let kvBytesPerToken: Int

        init(model: Model, threads: Int, kv: KVCacheType) {
            kvBytesPerToken = 2 * model.config.blockCount * kv.rowBytes(elements: model.config.kvLength)
            let tied = model.file.tensor(named: "output.weight") == nil
            weightBytes = model.file.tensors.reduce(0) { sum, t in
                sum + (t.name == "token_embd.weight" && !tied ? t.byteCount / max(t.rowCount, 1) : t.byteCount)
            }
            peakRSS = peakResidentMegabytes()  // before the bandwidth probe's 256 MiB buffer
            bandwidth = readBandwidth(threads: threads)
            isa = String(cString: loom_isa_name(loom_isa_active()))
            blas = String(cString: loom_blas_core_name())
        }
    }

    static func jsonReport(file: String, _ settings: Settings, _ samples: Samples, _ machine: MachineFigures) -> JSONValue {
        let (pp, tg) = (settings.pp, settings.tg)
        var fields: [(String, JSONValue)] = [
            ("model", .string(file)), ("threads", .number(JSONNumber(settings.threads))), ("engine", .string(settings.engine)),
            ("depth", .number(JSONNumber(settings.depth))),
            ("pp", .object(JSONObject([("tokens", .number(JSONNumber(pp))), ("tok_s", stats(samples.ppRates))]))),
            ("tg", .object(JSONObject([("tokens", .number(JSONNumber(tg))), ("tok_s", stats(samples.tgRates))]))),
            ("ttft_ms", stats(samples.ttfts)),
            ("weight_bytes_per_token", .number(JSONNumber(machine.weightBytes))),
            ("kv", .string(settings.kv.rawValue)), ("kv_bytes_per_token", .number(JSONNumber(machine.kvBytesPerToken))),
            ("weight_gbps", .number(JSONNumber(Double(machine.weightBytes) * median(samples.tgRates) / 1e9))),
            ("read_bandwidth_gbps", .number(JSONNumber(machine.bandwidth))),
            ("peak_rss_mb", .number(JSONNumber(machine.peakRSS))),
            ("isa", .string(machine.isa)), ("blas_core", .string(machine.blas)),
        ]
        if !samples.guidedRates.isEmpty {
            fields.append(("guided", .object(JSONObject([
                ("tokens", .number(JSONNumber(samples.guidedTokens))), ("tok_s", stats(samples.guidedRates)),
                ("unconstrained_tok_s", stats(samples.plainRates)), ("forced_share", .number(JSONNumber(samples.forcedShare))),
            ]))))
        }
        if let profile = samples.profile { fields.append(("profile", profile.json)) }
        return .object(JSONObject(fields))
    }

    static func textReport(file: String, _ settings: Settings, _ samples: Samples, _ machine: MachineFigures) -> String {
        func line(_ name: String, _ xs: [Double], _ unit: String) -> String {
            "\(name.padding(6)) median \(format(median(xs))) \(unit)  (min \(format(xs.min()!)), max \(format(xs.max()!)))\n"
        }
        var guidedLines = ""
        if !samples.guidedRates.isEmpty {
            guidedLines = line("guided", samples.guidedRates, "tok/s") + line("free", samples.plainRates, "tok/s")
                + "forced tokens \(format(samples.forcedShare * 100))%\n"
        }
        let weightBytes = Double(machine.weightBytes)
        let at = settings.depth > 0 ? " @ d\(settings.depth)" : ""
        let profileLines = samples.profile.map { $0.table(title: "tg step profile") } ?? ""
        return """
            model \(file), \(settings.threads) threads, engine \(settings.engine), isa \(machine.isa), BLAS core \(machine.blas)
            \(line("pp\(settings.pp)\(at)", samples.ppRates, "tok/s"))\(line("tg\(settings.tg)\(at)", samples.tgRates, "tok/s"))\
            \(line("ttft", samples.ttfts, "ms"))\
            \(guidedLines)\
            weights per token \(format(weightBytes / 1e6)) MB: \(format(weightBytes * median(samples.tgRates) / 1e9)) GB/s \
            of \(format(machine.bandwidth)) GB/s read bandwidth; peak RSS \(format(machine.peakRSS)) MB
            KV cache \(settings.kv.rawValue): \(machine.kvBytesPerToken) bytes per token
            \(profileLines)
            """
    }

    static func stats(_ xs: [Double]) -> JSONValue {
        .object(JSONObject([("median", .number(JSONNumber(median(xs)))),
                            ("min", .number(JSONNumber(xs.min()!))), ("max", .number(JSONNumber(xs.max()!)))]))
    }

    static func median(_ xs: [Double]) -> Double {
        let s = xs.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }

    static func format(_ x: Double) -> String {
        let r = (x * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }

    /// The machine's streaming read rate on `threads` threads over 256 MiB (best of a few runs).
    static func readBandwidth(threads: Int) -> Double {
        let bytes = 256 << 20
        guard let pool = loom_pool_create(Int32(threads)),
              let buffer = UnsafeMutableRawPointer(bitPattern: UInt(bitPattern: aligned_alloc(4096, bytes))) else { return 0 }
        defer { loom_pool_destroy(pool); free(buffer) }
        memset(buffer, 1, bytes)
        return BenchKernels.readBandwidth(pool, buffer, bytes)
    }

    /// Peak resident set size of this process (VmHWM), in MB.
    static func peakResidentMegabytes() -> Double {
        guard let f = fopen("/proc/self/status", "r") else { return 0 }
        defer { fclose(f) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, 256, f) != nil {
            let s = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if s.hasPrefix("VmHWM:") {
                let kb = s.split(separator: " ").compactMap { Double($0) }.first ?? 0
                return kb / 1024
            }
        }
        return 0
    }
}
