// The public typed surface of agent-find (see docs/API.md).

export type EntryType = 'file' | 'dir' | 'symlink'
export type Decision = 'allow' | 'deny' | 'require_approval'

/**
 * What a call needs of an `AbortSignal` (Node's, the DOM's, or any with the
 * same shape), so these types need neither `@types/node` nor `lib.dom`.
 */
export interface AbortSignalLike {
  readonly aborted: boolean
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void
  removeEventListener(type: 'abort', listener: () => void): void
}

export interface AccessRequest {
  tool: 'find' | 'find_files' | 'search_files'
  operation: 'search_files'
  /** The resolved logical path that would be searched. */
  path: string
}

/** Where a call runs, and what may stop or refuse it: shared by `find` and `searchFiles`. */
export interface CallOptions {
  /** Search root, relative to `cwd`; default `cwd`. */
  path?: string
  /** Default `process.cwd()` (with a `reader`: its root `/`). */
  cwd?: string
  /** Search the host's storage instead of the local disk (see `StorageReader`). */
  reader?: StorageReader
  signal?: AbortSignalLike
  /** Rejects with `aborted` after this long, counted from the call: the policy, approve and the walk included. */
  timeoutMs?: number
  /**
   * `'normal'` (default): the call's threads run at the host's own priority. `'low'`: below it (nice 10 on
   * Linux, QoS utility on macOS, below normal on Windows), for searches the host's own work should come before.
   */
  priority?: 'normal' | 'low'
  /** Asked before the path is checked or walked. */
  policy?: (req: AccessRequest) => Decision | Promise<Decision>
  /** Asked when the policy answers 'require_approval'. */
  approve?: (req: AccessRequest) => boolean | Promise<boolean>
  /** Sandbox: `path` must resolve (through `..` and symlinks) inside one of these. */
  roots?: string[]
  /**
   * What the walk (and a content search) left out, by reason, counted as it goes. Not given: `skipped` is in the
   * result only when the answer is empty or cut, and its text then ends with one line:
   * `Not searched: node_modules/ (.gitignore:3: node_modules/), 3 binary files.` true: always in the result.
   * false: not counted, and never shown.
   */
  skipped?: boolean
  /**
   * Only files git has as changed in the repository holding the search folder (read in-process, no `git`
   * binary): 'modified' (work tree against the index), 'staged' (index against HEAD), 'untracked' (not
   * ignored), 'changed' (any). Folders are entered only on the way to a changed file. Rejects with
   * `not-a-repository` outside a git work tree; with a `reader`, `invalid-argument`.
   */
  git?: GitScope
  /**
   * Only files changed since the merge base of HEAD and this ref ('origin/main', 'main', 'HEAD~3'): committed,
   * staged, modified or untracked. An unknown ref rejects with `invalid-argument`.
   */
  changedSince?: string
  /**
   * Also give the `git status --porcelain` letters of each file shown that git has a change of, as the result's
   * `gitStatus` (`{ 'src/a.ts': ' M', 'new.ts': '??' }`); unchanged files are not in it. With `git` or
   * `changedSince` it reuses their reading; alone it reads every kind of change and narrows nothing. The
   * model text does not show it. Rejects as `git` does outside a repository or with a `reader`.
   */
  gitStatus?: boolean
}

/**
 * A result's `gitStatus`: the two `git status --porcelain` letters (index, then work tree; `??` untracked) of
 * each path shown that git has a change of, by the path as the result shows it.
 */
export type GitStatusLetters = { [path: string]: string }

/** What was left out for one reason (see the `skipped` option). */
export interface SkippedGroup {
  reason: 'ignored' | 'hidden' | 'excluded' | 'always-skipped' | 'depth' | 'symlink' | 'denied' | 'binary' | 'too-large'
  /** Entries left out; a folder counts once (it is not entered). */
  count: number
  /** The first folders left out, in path order (no trailing `/`); `rule` for an ignored one: `file:line: pattern`. */
  folders: Array<{ path: string; rule?: string }>
}

/** Which changed files `git` keeps. */
export type GitScope = 'modified' | 'staged' | 'untracked' | 'changed'

export interface FindOptions extends CallOptions {
  /** A glob by default; with `regex: true`, a JavaScript regex tested against each basename. */
  pattern: string
  /**
   * `pattern` is a JavaScript regex, tested as `new RegExp(pattern, 'i').test(basename)`
   * (no `i` with `caseSensitive: true`); the form `/source/flags` gives its own flags
   * (plus `i` unless `caseSensitive`).
   */
  regex?: boolean
  /** Test the glob against the basename instead of the relative path. */
  matchBase?: boolean
  /** Default false: case-insensitive on every platform. */
  caseSensitive?: boolean
  /** Default 'file' (regular files only). */
  type?: 'file' | 'dir' | 'any'
  /** Default 1000; values above `maxLimit` are clamped. */
  limit?: number
  /** Default 1000; `Infinity` allowed for programmatic use. */
  maxLimit?: number
  /** 0 = only direct children of `path`. */
  maxDepth?: number
  /** Default 'recent' (newest first). `name`, `mtime`, `size` ascend; `reverse` flips. */
  sortBy?: 'recent' | 'name' | 'mtime' | 'size' | 'none'
  reverse?: boolean
  /** Keeps entries modified strictly after this: ISO date/time, epoch ms, a Date, or an age: '30m' '1h' '24h' '7d'. */
  modifiedSince?: string | number | Date
  /** Bytes, or '10KB' '1.5MB' '2GB' (1024-based), inclusive; never removes directories. */
  minSize?: number | string
  maxSize?: number | string
  /** Default true: dotfiles included. */
  hidden?: boolean
  /** Default true: .gitignore (nested), .ignore, .git/info/exclude. */
  gitignore?: boolean
  /** Extra globs to leave out, gitignore-style: `dist`, `*.log`, `src/gen`. */
  exclude?: string[]
  /** Default 51200 (at least 256): cap on the rendered model text. */
  maxBytes?: number
  /**
   * A token budget for the model text, counted as 4 bytes a token (at least 64): the text is cut to
   * `maxTokens * 4` bytes when that is below `maxBytes`, and the cut says how many of how many it shows.
   */
  maxTokens?: number
}

export interface FindEntry {
  /** Relative to `FindResult.path`, POSIX separators. */
  path: string
  type: EntryType
  /** Bytes (0 for directories). */
  size: number
  mtimeMs: number
  /**
   * Only for a name that is not valid UTF-8 (Linux allows any bytes): the
   * exact bytes of the relative path; `path` then holds the lossy text.
   */
  pathBytes?: number[]
}

export interface OmittedDir {
  /** Relative folder, `.` for the search directory itself. */
  dir: string
  count: number
}

export interface FindResult {
  /** The resolved search directory, absolute. */
  path: string
  entries: FindEntry[]
  /** Matches found before `limit` and the byte cap. */
  matched: number
  truncated: boolean
  truncatedBy?: 'limit' | 'maximum' | 'bytes'
  /** The truncation sentence the model text shows, when truncated. */
  notice?: string
  /** Why a pattern probably matched nothing, and what would include it. */
  hint?: string
  /** When truncated: the folders holding most left-out entries. */
  omitted?: OmittedDir[]
  /** What was left out, by reason: when the answer is empty or cut (always with `skipped: true`, never with false). */
  skipped?: SkippedGroup[]
  /** With `gitStatus: true`: the status letters of each changed entry shown. */
  gitStatus?: GitStatusLetters
}

// ---------------------------------------------------------------------------
// Storage readers: search a filesystem the host supplies

/** One child of a listed folder. Missing `size` or `modifiedTime` count as 0. */
export interface DirectoryEntry {
  /** A name, not a path: no `/`, not `.` or `..`. */
  name: string
  /** Symlinks are listed as such and never followed. */
  type: EntryType
  size?: number
  /** Epoch milliseconds, or a Date. */
  modifiedTime?: number | Date
}

/** What a path is (a symlink is `'symlink'`: not followed). */
export interface FileStat {
  type: EntryType
  size?: number
  modifiedTime?: number | Date
}

/**
 * A filesystem supplied by the host: paths are absolute POSIX paths in its
 * own namespace (normalized, root `/`). Reject with an error whose `code` is
 * `'ENOENT'`, `'ENOTDIR'`, `'EACCES'`/`'EPERM'` or `'EISDIR'` for those cases:
 * below the search path such folders and files are skipped, as on disk; any
 * other rejection fails the call with `fs-error`.
 */
export interface StorageReader {
  /** `search` is the same object for every call of one search (for per-search state); most readers ignore it. */
  list(dir: string, search?: object): Promise<DirectoryEntry[]> | DirectoryEntry[]
  stat(path: string, search?: object): Promise<FileStat> | FileStat
  /**
   * File contents: for content search, and for `.gitignore`/`.ignore` files (unless `gitignore: false`).
   * With `ranges: true` it is called with `range` and returns that part (`length` bytes, fewer only at the end).
   */
  read?(path: string, range?: ByteRange, search?: object): Promise<Uint8Array | string> | Uint8Array | string
  /** `true` when `read` honours `range`: content search then reads large files in 1 MiB chunks, never whole (ignore files are still read whole). */
  ranges?: boolean
  /** Most calls waiting for an answer at once; default 32, at most 1024. */
  concurrency?: number
  /**
   * `true` for a mounted reader: results show the search directory as a rooted
   * virtual path (`/workspace/docs`). Default `false`, a plain reader: it keeps
   * relative POSIX syntax (`docs`, and `.` for its root). The reader is called,
   * and the policy asked, with rooted paths either way.
   */
  mounted?: boolean
}

/** A part of a file: whole numbers of bytes. */
export interface ByteRange {
  offset: number
  length: number
}

/** File contents, or `{ content, modifiedTime }`, or `null` (a key ending in `/` also makes a folder). */
export type MemoryTreeValue =
  | string
  | Uint8Array
  | null
  | { type?: 'file'; content?: string | Uint8Array; modifiedTime?: number | Date }
  | { type: 'dir'; modifiedTime?: number | Date }
  | { type: 'symlink'; target: string }

/** A reader over files held in memory: paths (relative to `/`) to contents. Parent folders are implied. */
export declare function memoryReader(
  tree: { [path: string]: MemoryTreeValue } | Map<string, MemoryTreeValue>,
): StorageReader

/**
 * A reader over local folders mounted at virtual paths, e.g.
 * `{ '/workspace': '/home/me/project' }`: results and errors show the virtual
 * paths only, and nothing outside a mount is reached, through symlinks either.
 */
export declare function mountReader(mounts: { [virtualPath: string]: string } | Map<string, string>): StorageReader

// ---------------------------------------------------------------------------
// A live index: repeated searches of one folder answered from memory

export interface IndexStats {
  /** Files, folders and symlinks held (`.git` contents never are). */
  entries: number
  /** Memory held by the index's structures. */
  bytes: number
  bytesPerEntry: number
  /** Memory held by the lists kept for recent queries' rules (dropped when the tree changes). */
  cachedBytes: number
  /**
   * Memory held by the content layer: a sketch of each file's contents that
   * content searches made when they read it, so later ones skip files that
   * cannot hold a match (at most 256 MiB).
   */
  contentBytes: number
  /** Files with a sketch of their contents. */
  contentFiles: number
  /**
   * Bytes of file contents held in memory, so the files a content search
   * may match are searched without reading them again (at most
   * `openIndex`'s `contentCacheBytes`).
   */
  contentCacheBytes: number
  /** Files whose contents are held in memory. */
  contentCacheFiles: number
  /**
   * The sketches built in the background once the tree is built, for the files a default `searchFiles` reads:
   * `'waiting'` (the tree is being built, or sketches are off), `'running'`, `'done'`, or `'stopped'` (closed,
   * or the sketch cap reached). It runs at the lowest priority and waits while any call runs.
   */
  contentBuild: 'waiting' | 'running' | 'done' | 'stopped'
  /** Files the background build has looked at so far, of `contentBuildTotal`. */
  contentBuildFiles: number
  /** The files a default `searchFiles` reads, which the background build sketches. */
  contentBuildTotal: number
  /** The file the sketches are kept in across processes (absent with `persist: false`, or off Unix). */
  cacheFile?: string
  /** Sketches loaded from it at open, each checked against its file (size, mtime, ctime and inode). */
  cacheLoaded: number
  /** Sketches written to it by the last save (when the background build is done, and at `close()`). */
  cacheSaved: number
  /** Why the file was not used (corrupt, another version or folder) or not written, the last time. */
  cacheError?: string
  /** File-system events received. */
  events: number
  /** Folders listed again after events. */
  foldersReconciled: number
  /** Whole-tree comparisons after the OS dropped events (inotify's queue overflowed). */
  rescans: number
  lastRescan?: string
  /**
   * Folders that could not be watched (the OS's limit): every call lists them again first. On Linux, also files with
   * more than one name (hard links) left without a watch of their own: a call looks again at those it would show.
   */
  watchErrors: number
  lastError?: string
  closed: boolean
  /** What tells the index of changes: inotify (Linux), FSEvents (macOS), ReadDirectoryChangesW (Windows), kqueue, or polling. */
  watcher: 'inotify' | 'fsevents' | 'windows' | 'kqueue' | 'poll'
}

export interface FileIndex {
  /** The indexed folder. */
  readonly path: string
  /** `find` with the same results and text, from memory; `cwd` defaults to the folder. */
  find(options: FindOptions): Promise<FindResult>
  find(pattern: string, options?: Omit<FindOptions, 'pattern'>): Promise<FindResult>
  findFiles(pattern: string, path?: string, options?: CallOptions): Promise<string[]>
  findFiles(pattern: string, options?: CallOptions): Promise<string[]>
  searchFiles(options: SearchOptions): Promise<SearchResult>
  stats(): IndexStats
  /** Resolves once every change made before the call is in the index. */
  settled(): Promise<void>
  /** Releases every watcher and thread; later calls reject. */
  close(): Promise<void>
}

/** Walks `path` once, then keeps an exact picture of it from file-system events. */
export interface OpenIndexOptions {
  /** Resolves `path` (default `process.cwd()`). */
  cwd?: string
  /**
   * The most bytes of file contents the index keeps in memory for content
   * search (default 256 MiB; 0 keeps none). The smallest files are kept
   * first; only files a content search has read are held.
   */
  contentCacheBytes?: number
  /**
   * The folder the index's content sketches are kept in between processes (resolved against `cwd`). Default:
   * `AGENT_FIND_CACHE_DIR`, else the user's cache folder (`$XDG_CACHE_HOME/agent-find` or `~/.cache/agent-find`,
   * `~/Library/Caches/agent-find`, `%LOCALAPPDATA%\agent-find`). Electron: `app.getPath('userData')`.
   */
  cacheDir?: string
  /** `false`: nothing is saved or loaded. Default `true`. */
  persist?: boolean
  /**
   * The most entries (files, folders, symlinks) the index may hold: past it, or past the memory that many take, its
   * walk stops and `openIndex` rejects with `too-large`. Default 2,000,000; without it, the root of a file system
   * and the home folder are refused (`too-large`) before any walk.
   */
  maxEntries?: number
  /**
   * The most threads the index's walks, its background build of sketches and its queries run on (1 to 256; each
   * also takes fewer while other calls run). Default: every core, up to 12. The build runs at the lowest priority
   * whatever this says.
   */
  threads?: number
  /**
   * What tells the index of changes: `'native'` (default: inotify on Linux, FSEvents on macOS,
   * ReadDirectoryChangesW on Windows), `'recursive'` (the `notify` crate's recursive watcher, which macOS and
   * Windows use; on Linux its inotify backend), or `'poll'` (every folder and file looked at again each
   * `pollIntervalMs`: for network mounts and other file systems that send no events).
   */
  watcher?: 'native' | 'recursive' | 'poll'
  /** With `watcher: 'poll'`: ms between looks, 10 to 3,600,000 (default 2,000). */
  pollIntervalMs?: number
}

export declare function openIndex(path: string, options?: OpenIndexOptions): Promise<FileIndex>

export type FindFilesErrorCode =
  | 'invalid-argument'
  | 'invalid-pattern'
  | 'not-found'
  | 'not-a-dir'
  | 'permission-denied'
  | 'approval-required'
  | 'outside-root'
  | 'aborted'
  | 'fs-error'
  | 'not-a-repository'
  | 'too-large'

export declare class FindFilesError extends Error {
  constructor(code: FindFilesErrorCode, message: string, options?: { cause?: unknown })
  readonly name: 'FindFilesError'
  code: FindFilesErrorCode
  /** `{ name, code, message }`: what `JSON.stringify(err)` gives. */
  toJSON(): { name: 'FindFilesError'; code: FindFilesErrorCode; message: string }
}

export declare function find(options: FindOptions): Promise<FindResult>
export declare function find(pattern: string, options?: Omit<FindOptions, 'pattern'>): Promise<FindResult>

/** Absolute paths of regular files whose relative path matches the glob, in path order. */
export declare function findFiles(pattern: string, path?: string, options?: CallOptions): Promise<string[]>
export declare function findFiles(pattern: string, options?: CallOptions): Promise<string[]>

/** The text a model reads for a FindResult. */
export declare function formatFindResult(result: FindResult): string

/** An ignore-file line that matches the path `explain` was asked about. */
export interface IgnoreRule {
  /** Relative to the search directory (`.gitignore`, `src/.ignore`, `../.gitignore`, `.git/info/exclude`), or `core.excludesFile`. */
  file: string
  /** From 1. */
  line: number
  /** The line as written. */
  pattern: string
  /** False for a `!` line, which re-includes the path. */
  ignores: boolean
}

export type ExplainReason =
  | 'found' | 'missing' | 'outside' | 'search-directory' | 'hidden' | 'ignored' | 'git-dir' | 'always-skipped'
  | 'excluded' | 'symlink' | 'depth' | 'special' | 'type' | 'pattern' | 'metadata' | 'unchanged'

/** Why a path is or is not in the results of a `find`. */
export interface Explanation {
  /** Relative to the search directory; absolute when outside it. */
  path: string
  found: boolean
  reason: ExplainReason
  /** The entry the reason is about: the path itself or a folder on its way (relative). */
  at?: string
  /** The ignore line that decides: it ignores (`reason: 'ignored'`) or re-includes. */
  rule?: IgnoreRule
  /** When `rule` re-includes: the line it overrides. */
  overrides?: IgnoreRule
  /** The `exclude` glob, for `reason: 'excluded'`. */
  exclude?: string
  /** One or two sentences for a model. */
  text: string
}

/**
 * Why `path` (relative to `cwd`, or absolute) is or is not in the results of
 * `find(options)`; without `pattern`, only the walk's rules and the filters decide.
 * On the local disk only.
 */
export declare function explain(path: string, options?: Partial<FindOptions>): Promise<Explanation>

export interface SearchOptions extends CallOptions {
  /**
   * For target 'content', a regex in ripgrep's syntax (the Rust `regex` crate); one that needs lookaround or a
   * backreference runs on PCRE2, as `rg -P` would. For 'files', a file-name glob (a bare word is a contains-match).
   * Required unless `patterns` is given; with `patterns`, it is pattern 0 (an empty string is left out).
   */
  pattern?: string
  /**
   * Content search only: several regexes, any of which may match (as `rg -e A -e B`). Each match then says in
   * `patterns` which of them match its line(s): indexes into `[pattern, ...patterns]` (without `pattern` when it is
   * left out). When one needs lookaround or a backreference, all run on PCRE2 as one alternation.
   */
  patterns?: string[]
  /** Content search only: the pattern(s) are plain text, not regexes (as `rg -F`). Default false. */
  literal?: boolean
  /**
   * Content search only: a match may span lines (as `rg -U`): `\n` matches a line end, `^`/`$` anchor at lines,
   * `.` stops at a line end unless the pattern says `(?s)`. A match is reported at its first line, `match` holding its
   * lines joined by `\n` (at most 20); counts count matches, as `rg --count -U`. Each file is read whole: files over
   * 32 MiB are passed over in this mode.
   */
  multiline?: boolean
  /**
   * Content search only: at most this many matching lines per file, as `rg -m` (with `multiline`, runs of matches on
   * touching lines, each counting as one); `matchCount` and counts are then the counted totals, as `rg --count -m`.
   */
  maxPerFile?: number
  /**
   * Only files of these ripgrep file types ('py', 'js', 'rust', ...: `fileTypes()` lists them), matched by file name as
   * `rg -t` matches them. One name or a list. Both targets.
   */
  type?: string | string[]
  /**
   * Globs to leave out, as `find`'s `exclude` (gitignore-style lines, case-insensitive): 'dist', '*.min.js',
   * 'src/generated'. Both targets.
   */
  exclude?: string[]
  /** Default 'content'. */
  target?: 'content' | 'files'
  /**
   * With target 'files' only (else `invalid-argument`): `pattern` is a file name or a path's tail, not a glob, and
   * typos are allowed (`indx.js`, `pakage.json`); every file is ranked against it and `files` come best first
   * (exact name, name prefix, word or folder match, near spelling, then its letters in order), ties by path.
   * Case is ignored. `notice` says when no path holds the query as written (the order is then a guess).
   */
  fuzzy?: boolean
  /** Content search only: which files, e.g. '*.py', '*.{ts,tsx}' (no '/': the file name; with '/': the relative path); '.py' and '.{ts,tsx}' mean '*.py' and '*.{ts,tsx}'. */
  fileGlob?: string
  /** Default 'content'. */
  outputMode?: 'content' | 'files' | 'count'
  /** Default false. */
  ignoreCase?: boolean
  /** Also search the always-skipped folders (node_modules, dist, ...; never .git) and gitignored files. */
  noIgnore?: boolean
  /** Default 50; values above 500 are clamped. */
  maxResults?: number
  /** Content output only: lines of context before and after each matching line (as rg -C); at most 20 (more is lowered). Default 0. */
  context?: number
  /** Content output only: lines before each matching line (as rg -B); overrides `context` for that side. */
  before?: number
  /** Content output only: lines after each matching line (as rg -A); overrides `context` for that side. */
  after?: number
  /** Skip this many results first (lines in content mode, files otherwise), in the result's order. Default 0. */
  offset?: number
  /** The `cursor` of an earlier result, to get its next page; the other options must be the same (else `invalid-argument`). */
  cursor?: string
  /**
   * A token budget for the model text (4 bytes a token, at least 64). A content result that must be cut shows
   * matching lines spread across the files (each file's first line before any file's second), with `spread: true`
   * and no `cursor`; file and count lists keep their first items that fit.
   */
  maxTokens?: number
  /**
   * With `timeoutMs`: when the time runs out, answer with what was found (`incomplete: true`, in path order, with a
   * `cursor` to continue) instead of rejecting with `aborted`. An abort by `signal` still rejects. Default false.
   */
  partial?: boolean
}

/** A line around a match (`before`, `after`, `context`). */
export interface ContextLine {
  /** 1-based. */
  line: number
  /** Cut at 500 characters like a match. */
  text: string
}

export interface LineMatch {
  /** Relative to the search path, POSIX separators. */
  file: string
  /** 1-based. */
  line: number
  /**
   * The matching line, cut at 500 characters (marked `…[line cut]`); when the match lies past the cut, shown from a
   * little before it instead (marked `[line cut]… ` at the start); with `multiline`, the match's lines joined by `\n`.
   */
  match: string
  /** With `patterns`: the indexes of the patterns that match this line (or these lines). */
  patterns?: number[]
  /** 1-based byte column of the line's first match, as `rg --column` gives it (absent inside a line over 4 MiB). */
  column?: number
  /**
   * With `before`/`context`: the lines shown before it. Each line is shown once, as rg prints it: a line that is the
   * previous match's `after` context, or a match, is not repeated here.
   */
  before?: ContextLine[]
  /** With `after`/`context`: the lines shown after it, up to the next match. */
  after?: ContextLine[]
}

interface SearchResultBase {
  /** The search directory, absolute. */
  path: string
  /** Matching lines (content, count) or matching files (files), before `maxResults`. */
  matchCount: number
  /** Files that matched, before `maxResults`. */
  fileCount?: number
  truncated: boolean
  /** When more follows (`truncated` or `incomplete`): pass it as `cursor`, with the same options, for the next page. */
  cursor?: string
  /** With `offset` or `cursor`: how many results of the whole answer come before the first one shown. */
  offset?: number
  /** `partial` ran out of time: the results are the start of the answer (up to `cursor`); `matchCount` counts what was found so far. */
  incomplete?: true
  /**
   * On an index: its folder changed since the `cursor` was made (the page is of the tree as it is now), or the cursor
   * is another index's. Never for a cursor made off an index (by a walk on disk).
   */
  indexChanged?: true
  /**
   * When nothing matched and always-skipped folders were passed over: names them. With `fuzzy`, when no path holds
   * the query as written: says the order is approximate (typo and subsequence matches). On an index: that it
   * changed since the `cursor` was made. On a later page of a newest-first file list: that files modified after the
   * first page are listed after the others (and one shown before may be listed again).
   */
  notice?: string
  /** What was left out, by reason (binary files among them): when the answer is empty or cut (always with `skipped: true`, never with false). */
  skipped?: SkippedGroup[]
  /** `maxTokens` cut the matching lines: they are spread across the files, not the first ones (set only then). */
  spread?: true
  /** With `gitStatus: true`: the status letters of each changed file shown. */
  gitStatus?: GitStatusLetters
}

export interface ContentSearchResult extends SearchResultBase {
  matches: LineMatch[]
}

export interface FilesSearchResult extends SearchResultBase {
  /** Newest-modified first (in path order with `partial`); with `fuzzy`, best-ranked first. */
  files: string[]
}

export interface CountSearchResult extends SearchResultBase {
  counts: { file: string; count: number }[]
}

export type SearchResult = ContentSearchResult | FilesSearchResult | CountSearchResult

export declare function searchFiles(options: SearchOptions & { target: 'files' }): Promise<FilesSearchResult>
export declare function searchFiles(options: SearchOptions & { outputMode: 'files' }): Promise<FilesSearchResult>
export declare function searchFiles(options: SearchOptions & { outputMode: 'count' }): Promise<CountSearchResult>
export declare function searchFiles(options: SearchOptions & { outputMode?: 'content' }): Promise<ContentSearchResult>
export declare function searchFiles(options: SearchOptions): Promise<SearchResult>

/** ripgrep's file types, as `searchFiles`' `type` takes them: each name with its globs. */
export declare function fileTypes(): Record<string, string[]>

/** The text a model reads for a SearchResult. */
export declare function formatSearchResult(result: SearchResult): string

// ---------------------------------------------------------------------------
// Tools for language models, SDK adapters, codemode (js/tools.js)

/** A JSON Schema (draft 2020-12 / draft-07 subset) as the tool definitions use it. */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean'
  description?: string
  enum?: readonly (string | number | boolean)[]
  default?: unknown
  minimum?: number
  maximum?: number
  items?: JsonSchema
  anyOf?: readonly JsonSchema[]
  properties?: { readonly [name: string]: JsonSchema }
  required?: readonly string[]
  additionalProperties?: boolean
}

/** The parameters of a tool: an object schema whose properties are the arguments. */
export interface ToolParameters extends JsonSchema {
  type: 'object'
  properties: { readonly [name: string]: JsonSchema }
  required: readonly string[]
  additionalProperties: false
}

export type ToolName = 'find' | 'search_files'

/** A tool as a model sees it: name, description, and the JSON Schema of its arguments. */
export interface ToolDefinition<Name extends string = ToolName> {
  readonly name: Name
  /** A short human title (MCP `title`). */
  readonly title: string
  readonly description: string
  readonly parameters: ToolParameters
}

/** The `find` and `search_files` tool definitions (frozen). */
export declare const toolDefinitions: {
  readonly find: ToolDefinition<'find'>
  readonly search_files: ToolDefinition<'search_files'>
}

/** The arguments of the `find` tool: FindOptions without what the host fixes. */
export type FindToolArgs = Omit<
  FindOptions,
  'cwd' | 'roots' | 'policy' | 'approve' | 'signal' | 'timeoutMs' | 'maxLimit' | 'maxBytes' | 'modifiedSince'
> & {
  /** ISO date or date-time, epoch ms, or an age: '30m' '24h' '7d'. */
  modifiedSince?: string | number
}

/** The arguments of the `search_files` tool: SearchOptions without what the host fixes. */
export type SearchToolArgs = Omit<SearchOptions, 'cwd' | 'roots' | 'policy' | 'approve' | 'signal' | 'timeoutMs'>

/**
 * A fresh, mutable copy of a tool's parameters, as the SDK adapters return it
 * (assignable to OpenAI's `FunctionParameters` and Anthropic's `InputSchema`).
 */
export interface ToolInputSchema {
  type: 'object'
  properties: { [name: string]: JsonSchema }
  required: string[]
  additionalProperties: false
  [keyword: string]: unknown
}

/** OpenAI Chat Completions function tool (`ChatCompletionTool`). */
export interface OpenAITool {
  type: 'function'
  function: { name: string; description: string; parameters: ToolInputSchema }
}

/** Anthropic Messages API tool (`Tool`). */
export interface AnthropicTool {
  name: string
  description: string
  input_schema: ToolInputSchema
}

/**
 * What the Vercel AI SDK's `tool({ description, inputSchema, execute })`
 * returns. `inputSchema` is what its `jsonSchema(parameters)` returns, marked by
 * the SDK's global symbol (so `ai` is not imported); it is typed `any` because
 * that symbol's type lives in the SDK.
 */
export interface VercelTool {
  description: string
  inputSchema: any
  execute?: (input: any, options: { abortSignal?: AbortSignalLike }) => Promise<string>
}

/** `{ type: 'function', function: { name, description, parameters } }` */
export declare function openaiTool(definition: ToolDefinition<string>): OpenAITool
/** The OpenAI Responses API's function tool. */
export interface OpenAIResponsesTool {
  type: 'function'
  name: string
  description: string
  parameters: ToolInputSchema
  strict: false
}
/** `{ type: 'function', name, description, parameters, strict: false }` (OpenAI Responses API) */
export declare function openaiResponsesTool(definition: ToolDefinition<string>): OpenAIResponsesTool
/** `{ name, description, input_schema }` */
export declare function anthropicTool(definition: ToolDefinition<string>): AnthropicTool
/** `{ description, inputSchema, execute }`, as `tool()` from `ai` returns. */
export declare function vercelTool(
  definition: ToolDefinition<string>,
  execute?: (input: any, options: { abortSignal?: AbortSignalLike }) => Promise<string>,
): VercelTool

/** What the host fixes for every call: the workspace, its sandbox and its limits. */
export interface WorkspaceOptions {
  /** Where relative paths start. Default `process.cwd()` (with a `reader`: `/`). */
  cwd?: string
  /** The folders every search must stay inside. Default `[cwd]`; `null` lifts the sandbox. */
  roots?: string[] | null
  /** Every search goes to this storage instead of the local disk. */
  reader?: StorageReader
  policy?: (req: AccessRequest) => Decision | Promise<Decision>
  approve?: (req: AccessRequest) => boolean | Promise<boolean>
  /** A time limit for every call. */
  timeoutMs?: number
  /** Every call's priority (see `CallOptions.priority`). */
  priority?: 'normal' | 'low'
  /** The ceiling for `find`'s `limit` (default 1000; `Infinity` for scripts). */
  maxLimit?: number
  /** The cap on `find`'s model text (default 51200). */
  maxBytes?: number
  /**
   * Answer from a live index: `true` opens one per root (the workspace when
   * unconfined) in the background, a `FileIndex` is used as it is. Calls
   * outside an index's folder, or made before it is ready, are fresh walks.
   */
  index?: boolean | FileIndex
}

/** One tool call's answer for a model: the text, and whether it is an error to recover from. */
export interface ToolCallResult {
  text: string
  isError: boolean
}

/** The tools bound to one workspace: plain JSON arguments in, plain JSON out. */
export interface Tools {
  /** The absolute workspace folder. */
  readonly cwd: string
  /** The sandbox, absolute; `null` when unconfined. */
  readonly roots: string[] | null
  find(args: FindToolArgs): Promise<FindResult>
  findFiles(args: { pattern: string; path?: string }): Promise<string[]>
  findFiles(pattern: string, path?: string): Promise<string[]>
  searchFiles(args: SearchToolArgs & { target: 'files' }): Promise<FilesSearchResult>
  searchFiles(args: SearchToolArgs & { outputMode: 'files' }): Promise<FilesSearchResult>
  searchFiles(args: SearchToolArgs & { outputMode: 'count' }): Promise<CountSearchResult>
  searchFiles(args: SearchToolArgs & { outputMode?: 'content' }): Promise<ContentSearchResult>
  searchFiles(args: SearchToolArgs): Promise<SearchResult>
  /**
   * Runs a model's tool call (`args` an object or its JSON text). Errors a
   * model can recover from (FindFilesError) resolve as `{ isError: true }`.
   */
  call(name: ToolName | (string & {}), args: unknown, options?: { signal?: AbortSignalLike }): Promise<ToolCallResult>
  readonly definitions: ToolDefinition[]
  readonly openaiTools: OpenAITool[]
  /** For the OpenAI Responses API `tools`. */
  readonly openaiResponsesTools: OpenAIResponsesTool[]
  readonly anthropicTools: AnthropicTool[]
  readonly vercelTools: { find: VercelTool; search_files: VercelTool }
  /** Resolves once the indexes `index: true` opens are ready (or failed; fresh walks serve then). */
  ready(): Promise<void>
  /** Closes the indexes `index: true` opened (a FileIndex passed in stays open). */
  close(): Promise<void>
}

/** Binds `find`, `findFiles`, `searchFiles` and the model tools to a workspace. */
export declare function createTools(options?: WorkspaceOptions): Tools

// ---------------------------------------------------------------------------
// Agent frameworks (js/frameworks.js): each adapter takes the framework's own
// factories, typed here by what the adapter needs of them, so the result has
// the framework's own type and no framework's types are needed here.

/** What `claudeAgentServer` needs of zod, 3 or 4 (`import { z } from 'zod'`). */
export interface ZodLike {
  string(): any
  number(): any
  boolean(): any
  enum(values: any): any
  union(types: any): any
  array(type: any): any
  object(shape: any): any
}

/** From '@anthropic-ai/claude-agent-sdk': `{ createSdkMcpServer, tool }`, and zod as `z`. */
export interface ClaudeAgentSdkFactories<Server> {
  createSdkMcpServer(options: { name: string; version?: string; tools?: any[] }): Server
  tool(name: string, description: string, inputSchema: any, handler: (args: any, extra: unknown) => Promise<any>, extras?: any): unknown
  z: ZodLike
}

/**
 * An in-process MCP server for the Claude Agent SDK's `query({ options: {
 * mcpServers: { files } } })`, serving find, search_files and explain_path
 * (the model sees `mcp__files__find`, ...: the key under `mcpServers` names
 * them). A refused call is a tool result with `isError: true`.
 */
export declare function claudeAgentServer<Server>(
  tools: Tools,
  sdk: ClaudeAgentSdkFactories<Server>,
  options?: { /** The MCP server's name; default 'files'. */ name?: string },
): Server

/** A tool's parameters as the framework adapters pass them: a fresh, mutable copy of the JSON Schema. */
export interface FrameworkToolSchema {
  type: 'object'
  properties: Record<string, any>
  required: string[]
  additionalProperties: false
}

/** A tool's parameters in OpenAI's strict mode: every property required, the optional ones nullable. */
export interface StrictToolParameters {
  type: 'object'
  properties: Record<string, any>
  required: string[]
  additionalProperties: false
}

/** What `openaiAgentsTools` passes to the OpenAI Agents SDK's `tool()`. */
export interface OpenAIAgentsToolOptions {
  name: string
  description: string
  parameters: StrictToolParameters
  strict: true
  execute: (input: any, context?: any, details?: any) => Promise<string>
  errorFunction: (context: any, error: any) => string
}

/**
 * Strict `FunctionTool`s (find, search_files, explain_path) for an OpenAI
 * Agents SDK `Agent({ tools })`, made by `tool` from '@openai/agents'. A
 * refused call goes through the SDK's `errorFunction` as a tool error.
 */
export declare function openaiAgentsTools<T>(tools: Tools, sdk: { tool(options: OpenAIAgentsToolOptions): T }): T[]

/** What `langchainTools` passes to LangChain's `tool(func, fields)`. */
export interface LangChainToolFields {
  name: string
  description: string
  schema: FrameworkToolSchema
  verboseParsingErrors: boolean
}

/**
 * Structured tools (find, search_files, explain_path) for LangChain.js, made
 * by `tool` from '@langchain/core/tools'. Invoked with a tool call, a refused
 * call answers a `ToolMessage` (from '@langchain/core/messages') with
 * `status: 'error'`; with plain arguments it throws its FindFilesError.
 */
export declare function langchainTools<T>(
  tools: Tools,
  sdk: { tool(func: (input: any, config?: any) => Promise<any>, fields: LangChainToolFields): T; ToolMessage: new (fields: any) => unknown },
): T[]

/** What `mastraTools` passes to Mastra's `createTool()`. */
export interface MastraToolOptions {
  id: string
  description: string
  inputSchema: FrameworkToolSchema
  mcp: { annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean } }
  execute: (input: any, context?: any) => Promise<string>
}

/**
 * Tools for a Mastra `Agent({ tools })`, made by `createTool` from
 * '@mastra/core/tools' (1.11 and later). A refused call throws in
 * `execute`, which Mastra reports to the model as a tool error.
 */
export declare function mastraTools<T>(
  tools: Tools,
  sdk: { createTool(options: MastraToolOptions): T },
): { find: T; search_files: T; explain_path: T }
