'use strict'
// The option table, as the binding exports it (`optionTable()`): every
// option of `find` and `searchFiles` once, with its kind, default, the text
// a model reads and its command-line flag. Validation in the binding reads
// the same table; here it becomes the tools' JSON Schemas (js/tools.js).
// The CLI (cli/, native) reads the table in Rust for its flags and usage.

const native = require('./native.js')

/** Each row with its JSON fields parsed, frozen. */
const OPTIONS = Object.freeze(
  native.optionTable().map((row) =>
    Object.freeze({
      call: row.call,
      name: row.name,
      kind: row.kind,
      choices: row.choices,
      minimum: row.minimum,
      default: row.defaultJson === undefined || row.defaultJson === null ? undefined : JSON.parse(row.defaultJson),
      model: row.model ?? undefined,
      flag: row.flag
        ? Object.freeze({
          long: row.flag.long,
          short: row.flag.short ?? undefined,
          arg: row.flag.arg ?? undefined,
          sets: row.flag.setsJson === undefined || row.flag.setsJson === null ? true : JSON.parse(row.flag.setsJson),
          repeats: row.flag.repeats,
          help: row.flag.help,
        })
        : undefined,
    }),
  ),
)

/** The options of one call: 'find' or 'search'. */
function optionsOf(call) {
  return OPTIONS.filter((o) => o.call === call)
}

/** The JSON Schema of one option a model may set. */
function propertySchema(option) {
  const { kind } = option
  const schema =
    kind === 'boolean' ? { type: 'boolean' }
      : kind === 'integer' ? { type: 'integer', minimum: option.minimum }
        : kind === 'number' ? { type: 'number' }
          : kind === 'choice' ? { type: 'string', enum: [...option.choices] }
            : kind === 'size' ? { anyOf: [{ type: 'integer', minimum: 0 }, { type: 'string' }] }
              : kind === 'strings' ? { type: 'array', items: { type: 'string' } }
                : { type: 'string' } // string, date
  if (option.default !== undefined) schema.default = option.default
  schema.description = option.model
  return schema
}

/** The tool's input schema for one call: the options a model may set. */
function parametersOf(call) {
  const properties = {}
  for (const option of optionsOf(call)) {
    if (option.model !== undefined) properties[option.name] = propertySchema(option)
  }
  return { type: 'object', properties, required: ['pattern'], additionalProperties: false }
}

/** Options the host sets and a model may not (no `model` text), in either call. */
const HOST_FIXED = Object.freeze([...new Set(OPTIONS.filter((o) => o.model === undefined).map((o) => o.name))])

/** ripgrep's file types, as `searchFiles`' `type` takes them: name -> globs, in name order. */
function fileTypes() {
  return Object.fromEntries(native.fileTypes().map((t) => [t.name, t.globs]))
}

module.exports = { OPTIONS, optionsOf, parametersOf, HOST_FIXED, fileTypes }
