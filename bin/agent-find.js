#!/usr/bin/env node
'use strict'
// The `agent-find` command: `agent-find <pattern> [path]` finds files,
// `agent-find search <regex> [path]` searches their contents, `agent-find mcp`
// serves both as MCP tools over stdio (see js/mcp.js). The model text by
// default, `--json` for the result object. Exit 0 on success (also when
// nothing matched), 2 on bad usage, 1 on any other error; the error code
// leads the line on stderr.

const { parseArgs } = require('node:util')
const { find, findText, formatFindResult, searchFiles, formatSearchResult, FindFilesError } = require('..')

const USAGE = `Usage: agent-find <pattern> [path] [options]

Find files by glob (or regex), respecting .gitignore, newest first.

Options:
  --type file|dir|any       entry type (default file)
  --limit N                 at most N entries (default 1000)
  --max-limit N             ceiling for --limit (default 1000; Infinity allowed)
  --max-depth N             0 = only direct children of path
  --sort recent|name|mtime|size|none   (default recent)
  --reverse                 flip the order
  --regex                   pattern is a JavaScript regex tested against each file name
  --match-base              glob is tested against the file name, not the path
  --case-sensitive          match case (default: case-insensitive)
  --modified-since WHEN     modified strictly after: ISO date, epoch ms, or an age (30m, 24h, 7d)
  --min-size SIZE           bytes, or 10KB, 1.5MB, 2GB (inclusive)
  --max-size SIZE
  --no-hidden               leave out dotfiles and dot-folders
  --no-gitignore            do not apply .gitignore, .ignore, .git/info/exclude
  --exclude GLOB            leave out matching entries (repeatable)
  --max-bytes N             cap on the printed text (default 51200)
  --timeout MS              give up after MS milliseconds
  --root DIR                only search inside DIR (repeatable)
  --cwd DIR                 resolve path against DIR
  --json                    print the FindResult as JSON
  -h, --help                show this help
  -V, --version             show the version

Content search: agent-find search --help
MCP server (stdio): agent-find mcp --root DIR   (agent-find mcp --help)
Exit status: 0 on success (also when nothing matched), 2 on bad usage, 1 on other errors.`

const SEARCH_USAGE = `Usage: agent-find search <regex> [path] [options]

Search file contents with a regex (ripgrep's syntax; lookaround and backreferences
run on PCRE2, as rg -P), skipping .git, node_modules,
dist, build, target, vendor, .venv and other dependency folders, and gitignored files.

Options:
  --glob GLOB               only files matching GLOB, e.g. '*.py' or '*.{ts,tsx}'
  --mode content|files|count   matching lines (default), files that matched, or counts per file
  --files                   match file names instead: <regex> is a name glob (a bare word is a contains-match)
  -i, --ignore-case         case-insensitive
  --no-ignore               also search skipped folders and gitignored files
  --max-results N           at most N results (default 50, max 500)
  --timeout MS              give up after MS milliseconds
  --root DIR                only search inside DIR (repeatable)
  --cwd DIR                 resolve path against DIR
  --json                    print the SearchResult as JSON
  -h, --help                show this help`

const SHARED_FLAGS = {
  timeout: { type: 'string' },
  root: { type: 'string', multiple: true },
  cwd: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
}

const USAGE_CODES = new Set(['invalid-argument', 'invalid-pattern'])

// A reader that closed the pipe early (`agent-find ... | head -1`) has all it wanted.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0)
  throw err
})

function fail(code, message, status) {
  process.stderr.write(`agent-find: ${code}: ${message}\n`)
  process.exitCode = status
}

/** Numbers stay numbers (Infinity included); anything else is left to the library to judge. */
function number(text) {
  return text === undefined ? undefined : Number(text)
}

/** A size or date flag: digits alone mean bytes or epoch ms; other text is parsed by the library. */
function numberOrText(text) {
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : text
}

function findOptions(values, positionals) {
  const [pattern, path, ...extra] = positionals
  if (pattern === undefined) throw new FindFilesError('invalid-argument', 'missing <pattern>; try: agent-find "**/*.ts" src')
  if (extra.length) throw new FindFilesError('invalid-argument', `unexpected argument '${extra[0]}': give one pattern and at most one path`)
  const options = {
    pattern,
    path,
    cwd: values.cwd,
    type: values.type,
    limit: number(values.limit),
    maxLimit: number(values['max-limit']),
    maxDepth: number(values['max-depth']),
    sortBy: values.sort,
    reverse: values.reverse,
    regex: values.regex,
    matchBase: values['match-base'],
    caseSensitive: values['case-sensitive'],
    modifiedSince: numberOrText(values['modified-since']),
    minSize: numberOrText(values['min-size']),
    maxSize: numberOrText(values['max-size']),
    hidden: values['no-hidden'] ? false : undefined,
    gitignore: values['no-gitignore'] ? false : undefined,
    exclude: values.exclude,
    maxBytes: number(values['max-bytes']),
    timeoutMs: number(values.timeout),
    roots: values.root,
  }
  return defined(options)
}

function searchOptions(values, positionals) {
  const [pattern, path, ...extra] = positionals
  if (pattern === undefined) throw new FindFilesError('invalid-argument', "missing <regex>; try: agent-find search 'TODO' src --glob '*.py'")
  if (extra.length) throw new FindFilesError('invalid-argument', `unexpected argument '${extra[0]}': give one regex and at most one path`)
  return defined({
    pattern,
    path,
    cwd: values.cwd,
    target: values.files ? 'files' : undefined,
    fileGlob: values.glob,
    outputMode: values.mode,
    ignoreCase: values['ignore-case'],
    noIgnore: values['no-ignore'],
    maxResults: number(values['max-results']),
    timeoutMs: number(values.timeout),
    roots: values.root,
  })
}

function defined(options) {
  for (const key of Object.keys(options)) if (options[key] === undefined) delete options[key]
  return options
}

const COMMANDS = {
  find: {
    usage: USAGE,
    flags: {
      type: { type: 'string' },
      limit: { type: 'string' },
      'max-limit': { type: 'string' },
      'max-depth': { type: 'string' },
      sort: { type: 'string' },
      reverse: { type: 'boolean' },
      regex: { type: 'boolean' },
      'match-base': { type: 'boolean' },
      'case-sensitive': { type: 'boolean' },
      'modified-since': { type: 'string' },
      'min-size': { type: 'string' },
      'max-size': { type: 'string' },
      'no-hidden': { type: 'boolean' },
      'no-gitignore': { type: 'boolean' },
      exclude: { type: 'string', multiple: true },
      'max-bytes': { type: 'string' },
      version: { type: 'boolean', short: 'V' },
    },
    options: findOptions,
    run: find,
    format: formatFindResult,
    // Without --json the text is rendered natively: no object per entry.
    runText: findText,
  },
  search: {
    usage: SEARCH_USAGE,
    flags: {
      glob: { type: 'string' },
      mode: { type: 'string' },
      files: { type: 'boolean' },
      'ignore-case': { type: 'boolean', short: 'i' },
      'no-ignore': { type: 'boolean' },
      'max-results': { type: 'string' },
    },
    options: searchOptions,
    run: searchFiles,
    format: formatSearchResult,
  },
}

async function main(argv) {
  if (argv[0] === 'mcp') return require('../js/mcp.js').main(argv.slice(1))
  const command = argv[0] === 'search' ? COMMANDS.search : COMMANDS.find
  const args = command === COMMANDS.search ? argv.slice(1) : argv
  let parsed
  try {
    parsed = parseArgs({ args, allowPositionals: true, options: { ...command.flags, ...SHARED_FLAGS } })
  } catch (err) {
    // Node's message quotes the unknown flag twice, whatever its length.
    const message = err.message.length > 600 ? `${err.message.slice(0, 600)}… (${err.message.length} characters in all)` : err.message
    return fail('invalid-argument', `${message}\n\n${command.usage}`, 2)
  }
  const { values, positionals } = parsed
  if (values.help) return void process.stdout.write(`${command.usage}\n`)
  if (values.version) return void process.stdout.write(`${require('../package.json').version}\n`)
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

main(process.argv.slice(2))
