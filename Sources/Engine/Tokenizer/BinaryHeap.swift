/// A binary min-heap ordered by `before` (the element for which `before` holds pops first).
///
/// The merge loops of both BPE flavours need a priority queue of plain structs; this one keeps
/// them in a flat array with no per-element boxing.
struct BinaryHeap<Element> {
    private var items: [Element] = []
    private let before: (Element, Element) -> Bool

    init(before: @escaping (Element, Element) -> Bool) { self.before = before }

    var isEmpty: Bool { items.isEmpty }

    mutating func removeAll() { items.removeAll(keepingCapacity: true) }

    mutating func push(_ x: Element) {
        items.append(x)
        var i = items.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard before(items[i], items[parent]) else { break }
            items.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() -> Element? {
        guard let top = items.first else { return nil }
        let last = items.removeLast()
        if !items.isEmpty {
            items[0] = last
            var i = 0
            let n = items.count
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < n && before(items[l], items[m]) { m = l }
                if r < n && before(items[r], items[m]) { m = r }
                if m == i { break }
                items.swapAt(i, m)
                i = m
            }
        }
        return top
    }
}
