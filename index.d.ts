// The public typed surface of agent-find (see README.md and the contract).

export type EntryType = 'file' | 'dir' | 'symlink'
export type Decision = 'allow' | 'deny' | 'require_approval'

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
  /** Default `process.cwd()`. */
  cwd?: string
  signal?: AbortSignal
  timeoutMs?: number
  /** Asked before the path is checked or walked. */
  policy?: (req: AccessRequest) => Decision | Promise<Decision>
  /** Asked when the policy answers 'require_approval'. */
  approve?: (req: AccessRequest) => boolean | Promise<boolean>
  /** Sandbox: `path` must resolve (through `..` and symlinks) inside one of these. */
  roots?: string[]
}

export interface FindOptions extends CallOptions {
  /** A glob by default; a regex (Rust syntax) tested against each basename when `regex: true`. */
  pattern: string
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
  /** ISO date/time, epoch ms, a Date, or an age: '30m' '1h' '24h' '7d'. */
  modifiedSince?: string | number | Date
  /** Bytes, or '10KB' '1.5MB' '2GB' (1024-based), inclusive. */
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
}

export interface FindEntry {
  /** Relative to `FindResult.path`, POSIX separators. */
  path: string
  type: EntryType
  /** Bytes (0 for directories). */
  size: number
  mtimeMs: number
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
}

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

export declare class FindFilesError extends Error {
  constructor(code: FindFilesErrorCode, message: string, options?: { cause?: unknown })
  readonly name: 'FindFilesError'
  code: FindFilesErrorCode
}

export declare function find(options: FindOptions): Promise<FindResult>
export declare function find(pattern: string, options?: Omit<FindOptions, 'pattern'>): Promise<FindResult>

/** Absolute paths of regular files whose relative path matches the glob, in path order. */
export declare function findFiles(pattern: string, path?: string): Promise<string[]>

/** The text a model reads for a FindResult. */
export declare function formatFindResult(result: FindResult): string

export interface SearchOptions extends CallOptions {
  /** A regex (Rust `regex` syntax) for target 'content'; a file-name glob for 'files' (a bare word is a contains-match). */
  pattern: string
  /** Default 'content'. */
  target?: 'content' | 'files'
  /** Content search only: which files, e.g. '*.py', '*.{ts,tsx}' (no '/': the file name; with '/': the relative path). */
  fileGlob?: string
  /** Default 'content'. */
  outputMode?: 'content' | 'files' | 'count'
  /** Default false. */
  ignoreCase?: boolean
  /** Also search the always-skipped folders (node_modules, dist, ...; never .git) and gitignored files. */
  noIgnore?: boolean
  /** Default 50; values above 500 are clamped. */
  maxResults?: number
}

export interface LineMatch {
  /** Relative to the search path, POSIX separators. */
  file: string
  /** 1-based. */
  line: number
  /** The matching line, cut at 500 characters (marked `…[line cut]`). */
  match: string
}

interface SearchResultBase {
  /** The search directory, absolute. */
  path: string
  /** Matching lines (content, count) or matching files (files), before `maxResults`. */
  matchCount: number
  truncated: boolean
  /** When nothing matched and always-skipped folders were passed over: names them. */
  notice?: string
}

export interface ContentSearchResult extends SearchResultBase {
  matches: LineMatch[]
}

export interface FilesSearchResult extends SearchResultBase {
  /** Newest-modified first. */
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

/** The text a model reads for a SearchResult. */
export declare function formatSearchResult(result: SearchResult): string
