/// What `Grammar(jsonSchema:)` enforces, and where it departs from the specification.
///
/// **Drafts.** draft-04, -06, -07, 2019-09 and 2020-12, chosen by `$schema` (default 2020-12):
/// draft-04 boolean `exclusiveMinimum`/`exclusiveMaximum` and `id`; `items` arrays with
/// `additionalItems` before 2020-12, `prefixItems` + `items` from 2020-12; `dependencies` (array
/// and schema forms), `dependentRequired`, `dependentSchemas`; keywords beside `$ref` ignored before
/// 2019-09 and applied from 2019-09; `integer` is digits-only in draft-04 and "integral value"
/// (`1.0`) from draft-06.
///
/// **Exact keywords.** `type` (unions), `enum`/`const` (numbers by value, objects in any key
/// order; object and array members kept only when they satisfy the object and array keywords
/// beside them), `properties`, `required`, `additionalProperties`, `patternProperties` (overlapping
/// patterns: a member per pattern set, up to 6 patterns), `propertyNames` (string keywords),
/// `minProperties`/`maxProperties`, `items`/`prefixItems`/`additionalItems`, `minItems`/`maxItems`,
/// `contains` with `minContains`/`maxContains` (when the contains schema has an exact complement),
/// `uniqueItems` over finite item domains (enum, boolean, null), `minLength`/`maxLength` (code
/// points: an escaped surrogate pair counts once, and a length-bounded string admits escaped
/// surrogates only as pairs), `pattern` (ECMAScript subset, see `RegexCompiler`), `minimum`/`maximum`/exclusive
/// forms and `multipleOf`, decided on the literal text as exact decimals, `allOf` (folded),
/// `anyOf`, `oneOf` (alternatives made exclusive: branch *i* and the complement of every branch
/// not provably disjoint from it), `not` (pushed inward by De Morgan down to `type`, `enum`/`const`,
/// `required`, `pattern`, `format`, length/size/number bounds, `properties`, `patternProperties`
/// and `additionalProperties` (an object holding at least one member that breaks them); `not items` is
/// "some item fails", a `contains` of the complement; `not oneOf` is "no branch holds, or two
/// do", where pairs of provably disjoint branches drop out), `if`/`then`/`else`
/// (when `if` has an exact complement), `$ref`/`$defs`/`definitions` with recursion, `$id`/`$anchor`
/// scoping, `$dynamicRef`/`$dynamicAnchor` through the dynamic scope, caller-supplied remote
/// documents, `nullable` (OpenAPI), `unevaluatedProperties`/`unevaluatedItems` beside in-place
/// applicators (what the subschemas that hold evaluate is exempt; an `anyOf` whose branches
/// evaluate is expanded into "exactly these branches hold" alternatives).
///
/// **Formats.** `date`, `time`, `date-time`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`,
/// `uuid`, `uri`, `uri-reference`, `json-pointer`, `relative-json-pointer`; other values are
/// annotations (any string). Departures, all stricter than the RFCs (never looser): leap seconds
/// only as `23:59:60` UTC, no IP-literal hosts in e-mail domains beyond `[IPv4]`/`[IPv6:…]`, no
/// IDNA A-labels (`xx--` labels) in host names, hostnames' last label not all digits.
///
/// **Refused** (typed `GrammarError` with keyword and JSON pointer; `lenient` ignores them with a
/// warning): `$recursiveRef` to a `$recursiveAnchor`, `unevaluated*` where which branches hold
/// cannot be expressed exactly (more than 4 evaluating `anyOf` branches, or one without an exact
/// complement), `uniqueItems` over infinite domains, complements of `items` behind a prefix, of
/// `unevaluated*`, `multipleOf`, `if`, `contains`,
/// `propertyNames`, of two member-keyword groups in one object, and of `oneOf` with more than 64
/// overlapping branch pairs,
/// overlapping `oneOf` branches without an exact complement, `format` values that validators
/// assert but a regular language cannot (`regex`, `idn-hostname`, `idn-email`; `hostname` in
/// recognition, where IDNA A-labels cannot be checked), custom metaschemas requiring unknown vocabularies,
/// lookaround/backreferences/`\b`/`\p{…}` in patterns, and expansions past the size guards.
///
/// **Recognition vs generation.** `JSONSchemaOptions.recognition` accepts any JSON whitespace and
/// any property order (each declared property at most once); the default options generate compact
/// JSON with declared properties in schema order, and (`canonicalForms`) integers as plain digits
/// and host names without A-labels: subsets of the valid values. Object keys are matched as written by a JSON
/// serializer: a key spelled with escapes (`"\u0061"`) is refused rather than risk a duplicate.
enum JSONSchemaSupport {}
