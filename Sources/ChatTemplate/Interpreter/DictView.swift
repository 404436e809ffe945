/// A dict view, as `dict.keys()`, `dict.values()` and `dict.items()` return.
struct DictView {
    enum Kind: String { case keys, values, items }
    let kind: Kind
    let items: [Value]
}
