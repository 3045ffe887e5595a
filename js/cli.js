'use strict'
// The `agent-find` command in JavaScript: `agent-find <pattern> [path]` finds
// files, `agent-find search <regex> [path]` searches their contents,
// `agent-find explain <path> [pattern]` says why find lists a path or not,
// `agent-find mcp` serves them as MCP tools over stdio (see js/mcp.js). The
// model text by default, `--json` for the result object. Exit 0 on success
// (also when nothing matched), 2 on bad usage, 1 on any other error; the
// error code leads the line on stderr. bin/agent-find.js runs this, or the
// native CLI (cli/) where one is installed, which answers the same; the
// usage texts below and cli/src/usage.rs are the same text
// (__test__/cli-native.test.mjs holds them to it).

const { parseArgs } = require('node:util')
const { find, findText, formatFindResult, searchFiles, formatSearchResult, explain, FindFilesError } = require('..')
const { optionsOf, fileTypes } = require('./options.js')

/** The usage lines of the flags of one call's options (see js/options.js), then the CLI's own. */
function flagLines(call, own) {
  const lines = optionsOf(call)
    .filter((o) => o.flag)
    .map(({ flag }) => [`${flag.short ? `-${flag.short}, ` : ''}--${flag.long}${flag.arg ? ` ${flag.arg}` : ''}`, flag.help])
  return [...lines, ...own].map(([left, help]) => `  ${left.padEnd(26)}${left.length >= 26 ? ' ' : ''}${help}`).join('\n')
}

const USAGE = `Usage: agent-find <pattern> [path] [options]

Find files by glob (or regex), respecting .gitignore, newest first.

Options:
${flagLines('find', [['--json', 'print the FindResult as JSON'], ['-h, --help', 'show this help'], ['-V, --version', 'show the version']])}

Content search: agent-find search --help
Why a path is (not) listed: agent-find explain <path> [pattern]   (agent-find explain --help)
MCP server (stdio): agent-find mcp --root DIR   (agent-find mcp --help)
Exit status: 0 on success (also when nothing matched), 2 on bad usage, 1 on other errors.`

const SEARCH_USAGE = `Usage: agent-find search <regex> [path] [options]
       agent-find search -e <regex> [-e <regex> ...] [path] [options]

Search file contents with a regex (ripgrep's syntax; lookaround and backreferences
run on PCRE2, as rg -P), skipping .git, node_modules,
dist, build, target, vendor, .venv and other dependency folders, and gitignored files.

Options:
${flagLines('search', [['--type-list', 'list the file types --type takes, with their globs'], ['--json', 'print the SearchResult as JSON'], ['-h, --help', 'show this help']])}`

const EXPLAIN_USAGE = `Usage: agent-find explain <path> [pattern] [options]

Say why <path> is or is not listed by \`agent-find [pattern]\` run here with the same
options: the ignore-file line that hides it (as git check-ignore -v names it), or the
other reason (hidden, --exclude, --max-depth, a symlink on the way, the type, the pattern,
size or date filters, missing). Without a pattern, only the walk's rules and filters decide.

Options:
${flagLines('find', [['--json', 'print the Explanation as JSON'], ['-h, --help', 'show this help']])}`

/** parseArgs' description of the flags of one call's options. */
function flagsOf(call) {
  const flags = {}
  for (const { flag } of optionsOf(call)) {
    if (!flag) continue
    flags[flag.long] = { type: flag.arg ? 'string' : 'boolean', ...(flag.short && { short: flag.short }), ...(flag.repeats && { multiple: true }) }
  }
  return flags
}

const CLI_FLAGS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
}

const USAGE_CODES = new Set(['invalid-argument', 'invalid-pattern'])

function fail(code, message, status) {
  process.stderr.write(`agent-find: ${code}: ${message}\n`)
  process.exitCode = status
}

/** A flag's text as the option's value: numbers stay numbers (Infinity included); for a size or a date, digits alone mean bytes or epoch ms; any other text is left to the library to judge. */
function valueOf(option, text) {
  if (option.kind === 'integer' || option.kind === 'number') return Number(text)
  if (option.kind === 'size' || option.kind === 'date') return /^\d+$/.test(text) ? Number(text) : text
  return text
}

/** The options the parsed flags set, with the pattern and path from the positionals. */
function optionsFrom(call, values, positionals, example) {
  // With -e (as in rg), the regexes come from the flags and the positional is the path.
  const withE = call === 'search' && values.regexp !== undefined
  const [pattern, path, ...extra] = withE ? [undefined, ...positionals] : positionals
  const what = call === 'search' ? 'regex' : 'pattern'
  if (pattern === undefined && !withE) throw new FindFilesError('invalid-argument', `missing <${what}>; try: ${example}`)
  if (extra.length) throw new FindFilesError('invalid-argument', `unexpected argument '${extra[0]}': give one ${what} and at most one path`)
  const options = withE ? {} : { pattern }
  if (path !== undefined) options.path = path
  for (const option of optionsOf(call)) {
    const given = option.flag && values[option.flag.long]
    if (given === undefined || given === false) continue
    options[option.name] = option.flag.arg ? valueOf(option, given) : option.flag.sets
  }
  return options
}

const COMMANDS = {
  find: {
    usage: USAGE,
    flags: { ...flagsOf('find'), version: { type: 'boolean', short: 'V' } },
    options: (values, positionals) => optionsFrom('find', values, positionals, 'agent-find "**/*.ts" src'),
    run: find,
    format: formatFindResult,
    // Without --json the text is rendered natively: no object per entry.
    runText: findText,
  },
  search: {
    usage: SEARCH_USAGE,
    flags: { ...flagsOf('search'), 'type-list': { type: 'boolean' } },
    options: (values, positionals) => optionsFrom('search', values, positionals, "agent-find search 'TODO' src --glob '*.py'"),
    run: searchFiles,
    format: formatSearchResult,
  },
  explain: {
    usage: EXPLAIN_USAGE,
    flags: flagsOf('find'),
    options: (values, positionals) => {
      const [target, pattern, ...extra] = positionals
      if (target === undefined) throw new FindFilesError('invalid-argument', 'missing <path>; try: agent-find explain build/out.js')
      if (extra.length) throw new FindFilesError('invalid-argument', `unexpected argument '${extra[0]}': give one path and at most one pattern`)
      const options = optionsFrom('find', values, pattern === undefined ? ['**'] : [pattern], '')
      if (pattern === undefined) delete options.pattern
      return { target, options }
    },
    run: ({ target, options }) => explain(target, options),
    format: (explanation) => explanation.text,
  },
}

/** Runs the command `argv` (the arguments after `agent-find`); sets `process.exitCode`. */
async function main(argv) {
  // A reader that closed the pipe early (`agent-find ... | head -1`) has all it wanted.
  process.stdout.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(0)
    throw err
  })
  if (argv[0] === 'mcp') return require('./mcp.js').main(argv.slice(1))
  const named = argv[0] === 'search' || argv[0] === 'explain' ? argv[0] : undefined
  const command = COMMANDS[named ?? 'find']
  const args = named ? argv.slice(1) : argv
  let parsed
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { ...command.flags, ...CLI_FLAGS } })
  } catch (err) {
    // Node's message quotes the unknown flag twice, whatever its length.
    const message = err.message.length > 600 ? `${err.message.slice(0, 600)}… (${err.message.length} characters in all)` : err.message
    return fail('invalid-argument', `${message}\n\n${command.usage}`, 2)
  }
  const { values, positionals } = parsed
  if (values.help) return void process.stdout.write(`${command.usage}\n`)
  if (values.version) return void process.stdout.write(`${require('../package.json').version}\n`)
  if (values['type-list']) {
    const lines = Object.entries(fileTypes()).map(([name, globs]) => `${name}: ${globs.join(', ')}`)
    return void process.stdout.write(`${lines.join('\n')}\n`)
  }
  try {
    const options = command.options(values, positionals)
    if (!values.json && command.runText) return void process.stdout.write(`${await command.runText(options)}\n`)
    const result = await command.run(options)
    process.stdout.write(values.json ? `${JSON.stringify(result, null, 2)}\n` : `${command.format(result)}\n`)
  } catch (err) {
    if (err instanceof FindFilesError) return fail(err.code, err.message, USAGE_CODES.has(err.code) ? 2 : 1)
    return fail('internal', err && err.stack ? err.stack : String(err), 1)
  }
}

module.exports = { main }
