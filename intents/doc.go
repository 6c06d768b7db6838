// Package intents defines the arguments of the three packfs tools, as
// intents: [Access] for the reader, [Discover] for the searcher and [Update]
// for the writer.
//
// Each intent is one Go type that carries, on the same fields, its JSON
// names, its validation rules (validate tags, checked with
// github.com/go-playground/validator/v10) and its descriptions for the model
// (jsonschema tags). [Schema] turns a type into the JSON Schema a tool
// declares, and [Decode] turns a tool call's arguments into a validated
// intent. Every failure is a *[FieldError] that names the JSON field and a
// stable rule and wraps [ErrInvalid].
//
// Which purposes take which field is written once, in the purposes tag of
// the field (see [Takes]): [Decode] refuses a field set for a purpose that
// does not take it, naming the field and the purposes that do, and [Schema]
// says the same in the field's description, so no field is accepted and then
// silently ignored.
//
// Decoding is lenient about the shape of what a model sends (a number sent
// as "10", an object sent as a JSON-encoded string, a path given without its
// target) but strict about its content: unknown fields and values of the
// wrong type are refused, never silently replaced by a default.
//
// The limits in the validate tags bound the work one call can ask for: a
// path is at most 4096 characters (Linux PATH_MAX), a query or content
// filter 1000, a name glob 256, an extension 32 and a list of them 50;
// search_semantic takes at most 8 extra phrasings, an edit at most 100
// replacements, and a search at most 10000 results, 10 context lines and a
// depth of 1000. They live in the tags, because that is where both
// validation and [Schema] read them; a limit that code elsewhere holds too
// (fsroot's MaxPathBytes, [MaxReadPaths], [MaxResults]) is also a constant,
// and a test ties the tag's number to it.
//
// The package knows nothing of files or of MCP: it imports neither os nor
// an MCP library, and paths here are unchecked strings that the caller must
// still resolve inside the sandbox root.
package intents
