/**
 * MongoDB's numeric error codes and their `codeName`s, for the errors this server can raise.
 * Drivers and callers branch on these numbers (11000 for duplicates, 43 for lost cursors), so
 * they must be MongoDB's own values, copied from MongoDB's `error_codes.yml`.
 */
export const ErrorCodes = {
  InternalError: 1,
  Unauthorized: 13,
  BadValue: 2,
  FailedToParse: 9,
  TypeMismatch: 14,
  Overflow: 15,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  IndexNotFound: 27,
  PathNotViable: 28,
  ConflictingUpdateOperators: 40,
  CursorNotFound: 43,
  NamespaceExists: 48,
  CommandNotFound: 59,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  InvalidOptions: 72,
  InvalidNamespace: 73,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  CannotIndexParallelArrays: 171,
  InvalidIndexSpecificationOption: 197,
  UnsupportedOpQueryCommand: 352,
  DuplicateKey: 11000,
  Location15958: 15958,
  Location15956: 15956,
  Location15952: 15952,
  Location15973: 15973,
  Location15975: 15975,
  Location31249: 31249,
  Location31253: 31253,
  Location31254: 31254,
  Location40324: 40324,
  Location40414: 40414,
  Location40415: 40415,
  Location40323: 40323,
  Location40571: 40571,
  Location15955: 15955,
  Location15959: 15959,
  Location15976: 15976,
  Location51024: 51024,
  Location51272: 51272,
} as const;

/** A code name known to this server; the numeric value comes from {@link ErrorCodes}. */
export type ErrorCodeName = keyof typeof ErrorCodes;
