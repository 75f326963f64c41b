"""Which SQL functions a read may call: the allow-list of pure functions and the list of
functions with side effects (pure data, used by :mod:`app.policy.sql`).

* **Dangerous** (rated ``delete``): functions that act outside the query's result —
  end or signal backends, change settings, take locks, sleep, touch server files or large
  objects, run SQL on another connection or a shell, move sequences, notify listeners,
  reset statistics, drive replication or backups. Sources: PostgreSQL's "System
  Administration Functions", "Sequence Manipulation Functions", "Large Objects",
  "Advisory Lock Functions", the dblink, adminpack and pg_stat_statements extensions;
  MySQL's locking, sleep and file functions; SQLite's shell/extension functions;
  ClickHouse and DuckDB table functions that read files or URLs; SQL Server's
  ``OPEN*`` rowset functions; Oracle's ``DBMS_*`` / ``UTL_*`` packages.
* **Pure** (rated ``read``): aggregates, window functions, math, string, date/time,
  casts, conditionals, JSON/array accessors and read-only catalog lookups. A function on
  neither list is unknown: a user-defined function may write, so it counts as ``write``.
"""

from __future__ import annotations

DANGEROUS_FUNCTIONS: frozenset[str] = frozenset(
    {
        # PostgreSQL: signals, settings, server control
        "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile",
        "pg_log_backend_memory_contexts", "pg_log_standby_snapshot", "set_config",
        "pg_promote", "pg_switch_wal", "pg_switch_xlog", "pg_create_restore_point",
        "pg_start_backup", "pg_stop_backup", "pg_export_snapshot", "pg_import_system_collations",
        "pg_notify", "txid_current", "pg_current_xact_id", "pg_sleep", "pg_sleep_for",
        "pg_sleep_until", "nextval", "setval", "brin_summarize_new_values",
        "brin_summarize_range", "brin_desummarize_range", "gin_clean_pending_list",
        "pg_stat_file", "pg_stat_statements_reset", "next_value_for", "pg_truncate_visibility_map",
        # PostgreSQL: functions that run a query given as text
        "query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml",
        "cursor_to_xmlschema", "ts_stat", "dblink", "dblink_exec",
        # PostgreSQL: large objects
        "lo_import", "lo_export", "lo_unlink", "lo_create", "lo_creat", "lo_put",
        "lo_from_bytea", "lo_truncate", "lo_truncate64", "lo_open", "lowrite", "lo_write",
        # MySQL / MariaDB
        "sleep", "benchmark", "get_lock", "release_lock", "release_all_locks", "load_file",
        "master_pos_wait", "source_pos_wait", "wait_for_executed_gtid_set",
        "wait_until_sql_thread_after_gtids", "sys_exec", "sys_eval",
        # SQLite
        "load_extension", "writefile", "readfile", "edit", "fts3_tokenizer",
        # ClickHouse / DuckDB / Trino table functions reading files, URLs or other servers
        "file", "url", "s3", "s3cluster", "hdfs", "remote", "remotesecure", "executable",
        "jdbc", "odbc", "input", "read_csv", "read_csv_auto", "read_parquet", "read_json",
        "read_json_auto", "read_text", "read_blob", "glob", "to_file",
        # SQL Server
        "openrowset", "opendatasource", "openquery", "openxml",
    }
)  # fmt: skip

DANGEROUS_PREFIXES: tuple[str, ...] = (
    "pg_advisory",
    "pg_try_advisory",
    "pg_stat_reset",
    "pg_ls_",
    "pg_read_",
    "pg_file_",
    "pg_create_",
    "pg_drop_",
    "pg_copy_",
    "pg_replication_",
    "pg_logical_",
    "pg_wal_replay",
    "pg_backup_",
    "binary_upgrade_",
    "dblink_",
    "lo_",
    "dbms_",
    "utl_",
    "xp_",
    "system$",
)

PURE_FUNCTIONS: frozenset[str] = frozenset(
    {
        # aggregates and window functions
        "count", "sum", "avg", "min", "max", "stddev", "stddev_pop", "stddev_samp",
        "variance", "var_pop", "var_samp", "corr", "covar_pop", "covar_samp", "median",
        "mode", "percentile_cont", "percentile_disc", "string_agg", "array_agg",
        "group_concat", "listagg", "json_agg", "jsonb_agg", "json_object_agg",
        "jsonb_object_agg", "bool_and", "bool_or", "every", "bit_and", "bit_or", "bit_xor",
        "any_value", "approx_distinct", "approx_count_distinct", "count_if", "countif",
        "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag",
        "lead", "first_value", "last_value", "nth_value", "grouping",
        # math
        "abs", "ceil", "ceiling", "floor", "round", "trunc", "truncate", "sign", "sqrt",
        "cbrt", "power", "pow", "exp", "ln", "log", "log10", "log2", "mod", "div", "pi",
        "degrees", "radians", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "cot",
        "random", "rand", "greatest", "least", "width_bucket", "factorial", "gcd", "lcm",
        "scale", "div0", "to_number", "try_to_number", "values",
        # strings
        "length", "char_length", "character_length", "octet_length", "bit_length", "lower",
        "upper", "initcap", "concat", "concat_ws", "substr", "substring", "left", "right",
        "lpad", "rpad", "ltrim", "rtrim", "btrim", "trim", "replace", "translate", "reverse",
        "repeat", "strpos", "position", "instr", "locate", "split_part", "split",
        "starts_with", "ends_with", "ascii", "chr", "char", "format", "quote_ident",
        "quote_literal", "quote_nullable", "md5", "sha1", "sha2", "sha256", "encode",
        "decode", "to_hex", "hex", "unhex", "regexp_replace", "regexp_matches",
        "regexp_match", "regexp_like", "regexp_substr", "regexp_split_to_array",
        "regexp_split_to_table", "regexp_count", "regexp_instr", "overlay", "soundex",
        "difference", "levenshtein", "string_to_array", "array_to_string", "to_char",
        "ucase", "lcase", "space", "mid", "field", "find_in_set", "elt", "format_number",
        # date and time
        "now", "current_date", "current_time", "current_timestamp", "localtime",
        "localtimestamp", "clock_timestamp", "statement_timestamp", "transaction_timestamp",
        "timeofday", "date_trunc", "date_part", "datepart", "extract", "age", "to_date",
        "to_timestamp", "make_date", "make_time", "make_timestamp", "make_timestamptz",
        "make_interval", "justify_days", "justify_hours", "justify_interval", "date_add",
        "date_sub", "dateadd", "datediff", "date_diff", "timestampadd", "timestampdiff",
        "date_format", "str_to_date", "from_unixtime", "unix_timestamp", "curdate",
        "curtime", "sysdate", "getdate", "year", "quarter", "month", "week", "day", "hour",
        "minute", "second", "dayofweek", "dayofmonth", "dayofyear", "weekofyear",
        "last_day", "monthname", "dayname", "to_days", "from_days", "date", "time",
        "timestamp", "datetime", "isfinite", "date_bin", "epoch", "to_iso8601",
        # casts and conditionals
        "cast", "try_cast", "convert", "coalesce", "nullif", "ifnull", "isnull", "nvl",
        "nvl2", "iif", "if", "case", "decode_case", "typeof", "pg_typeof", "format_type",
        # JSON and arrays (read-only accessors and builders)
        "to_json", "to_jsonb", "row_to_json", "array_to_json", "json_build_object",
        "jsonb_build_object", "json_build_array", "jsonb_build_array", "json_extract_path",
        "json_extract_path_text", "jsonb_extract_path", "jsonb_extract_path_text",
        "json_array_length", "jsonb_array_length", "json_typeof", "jsonb_typeof",
        "json_each", "jsonb_each", "json_each_text", "jsonb_each_text",
        "json_array_elements", "jsonb_array_elements", "json_array_elements_text",
        "jsonb_array_elements_text", "json_object_keys", "jsonb_object_keys",
        "jsonb_pretty", "jsonb_path_query", "jsonb_path_exists", "json_extract",
        "json_unquote", "json_value", "json_query", "array_length", "array_position",
        "array_positions", "array_remove", "array_replace", "array_cat", "array_append",
        "array_prepend", "array_dims", "array_lower", "array_upper", "cardinality",
        "unnest", "generate_series", "generate_subscripts",
        # read-only catalog and session lookups
        "version", "current_database", "current_schema", "current_schemas", "current_user",
        "session_user", "current_role", "user", "database", "schema", "current_setting",
        "current_catalog", "current_version", "current_timezone", "utc_timestamp", "utc_date",
        "utc_time", "pg_backend_pid", "inet_server_addr", "inet_server_port",
        "pg_postmaster_start_time", "pg_conf_load_time", "pg_size_pretty",
        "pg_relation_size", "pg_total_relation_size", "pg_table_size", "pg_indexes_size",
        "pg_database_size", "pg_column_size", "pg_get_viewdef", "pg_get_indexdef",
        "pg_get_constraintdef", "pg_get_functiondef", "pg_get_expr", "pg_get_userbyid",
        "pg_table_is_visible", "obj_description", "col_description", "shobj_description",
        "has_table_privilege", "has_schema_privilege", "has_database_privilege",
        "has_column_privilege", "pg_has_role", "to_regclass", "currval", "lastval",
        "pg_is_in_recovery", "pg_encoding_to_char", "pg_get_serial_sequence",
    }
)  # fmt: skip

# sqlglot's typed built-ins (node class names), reviewed one by one: each computes a value
# from its arguments only. Left out: file and URL readers (ReadCSV, ReadParquet, ToFile),
# sequences (NextValueFor, Seq*), AI/ML and embedding calls, row generators, dynamic
# identifiers and secrets. A typed node not listed here is judged by its SQL name.
PURE_NODE_CLASSES: frozenset[str] = frozenset(
    """
Abs Acos Acosh AddMonths And AnyValue ApproxDistinct ApproxPercentileAccumulate
ApproxPercentileCombine ApproxPercentileEstimate ApproxQuantile ApproxQuantiles ApproxTopK
ApproxTopKAccumulate ApproxTopKCombine ApproxTopKEstimate ApproxTopSum ApproximateSimilarity
ArgMax ArgMin Array ArrayAgg ArrayAppend ArrayCompact ArrayConcat ArrayConcatAgg
ArrayConstructCompact ArrayContainedBy ArrayContains ArrayContainsAll ArrayDistinct
ArrayExcept ArrayFirst ArrayInsert ArrayIntersect ArrayLast ArrayMax ArrayMin ArrayOverlaps
ArrayPosition ArrayPrepend ArrayRemove ArrayRemoveAt ArrayReverse ArraySize ArraySlice
ArraySort ArraySum ArrayToString ArrayUnionAgg ArrayUniqueAgg ArraysZip Ascii Asin Asinh
Atan Atan2 Atanh Avg Base64DecodeBinary Base64DecodeString Base64Encode BitLength
BitmapBitPosition BitmapBucketNumber BitmapConstructAgg BitmapCount BitmapOrAgg
BitwiseAndAgg BitwiseCount BitwiseOrAgg BitwiseXorAgg Booland Boolnot Boolor BoolxorAgg
ByteLength Case Cast CastToStrType Cbrt Ceil CheckJson CheckXml Chr CityHash64 Coalesce
CodePointsToBytes CodePointsToString Collate Collation Compress Concat ConcatWs
ConnectByRoot Contains Convert ConvertTimezone ConvertToCharset Corr Cos Cosh CosineDistance
Cot Coth Count CountIf CovarPop CovarSamp Csc Csch CumeDist CurrentAccount
CurrentAccountName CurrentAvailableRoles CurrentCatalog CurrentClient CurrentDatabase
CurrentDate CurrentDatetime CurrentIpAddress CurrentOrganizationName CurrentOrganizationUser
CurrentRegion CurrentRole CurrentRoleType CurrentSchema CurrentSchemas CurrentSecondaryRoles
CurrentTime CurrentTimestamp CurrentTimestampLTZ CurrentTimezone CurrentUser CurrentUserId
CurrentVersion CurrentWarehouse Date DateAdd DateBin DateDiff DateFromParts DateFromUnixDate
DateStrToDate DateSub DateToDateStr DateToDi DateTrunc Datetime DatetimeAdd DatetimeDiff
DatetimeSub DatetimeTrunc Day DayOfMonth DayOfWeek DayOfWeekIso DayOfYear Dayname Decode
DecodeCase DecompressBinary DecompressString Decrypt DecryptRaw Degrees DenseRank DiToDate
DotProduct Elt Encode Encrypt EncryptRaw EndsWith EqualNull EuclideanDistance Exists Exp
Explode ExplodingGenerateSeries Extract Factorial FarmFingerprint First FirstValue Flatten
Float64 Floor Format FromBase FromBase32 FromBase64 FromISO8601Date FromISO8601Timestamp
FromISO8601TimestampNanos FromJson GenerateDateArray GenerateSeries GenerateTimestampArray
GetExtract GetIgnoreCase Getbit Greatest GroupConcat Grouping GroupingId HashAgg Hex
HexDecodeString Hll Host Hour If Initcap Int64 IsArray IsAscii IsInf IsNan IsNullValue
JSONArray JSONArrayAgg JSONArrayAppend JSONArrayContains JSONArrayInsert JSONBContains
JSONBContainsAllTopKeys JSONBContainsAnyTopKeys JSONBContainsTopKey JSONBDeleteAtPath
JSONBExists JSONBExtract JSONBExtractScalar JSONBObjectAgg JSONBPathExists JSONBool JSONCast
JSONExists JSONExtract JSONExtractArray JSONExtractScalar JSONFormat JSONKeys
JSONKeysAtDepth JSONObject JSONObjectAgg JSONRemove JSONSet JSONStripNulls JSONType
JSONValueArray JarowinklerSimilarity JustifyDays JustifyHours JustifyInterval Kurtosis Lag
Last LastDay LastValue LaxBool LaxFloat64 LaxInt64 LaxString Lead Least Left Length
Levenshtein List Ln Localtime Localtimestamp Log LogicalAnd LogicalOr Lower LowerHex MD5
MD5Digest MD5NumberLower64 MD5NumberUpper64 MakeInterval ManhattanDistance Map MapCat
MapContainsKey MapDelete MapFromEntries MapInsert MapKeys MapPick MapSize MatchAgainst Max
Median Min Minhash MinhashCombine Minute Mode Month Monthname MonthsBetween Nanvl Negative
NextDay Normalize NthValue Ntile Nullif NumberToStr Nvl2 ObjectAgg ObjectId ObjectInsert Or
Overlay Pad ParseBignumeric ParseDatetime ParseIp ParseJSON ParseNumeric ParseTime ParseUrl
PercentRank PercentileCont PercentileDisc Pi Posexplode PosexplodeOuter Pow PreviousDay
Quantile Quarter Radians Rand RangeBucket RangeN Rank RegDomain RegexpCount RegexpExtract
RegexpExtractAll RegexpFullMatch RegexpILike RegexpInstr RegexpLike RegexpReplace
RegexpSplit RegexpSubstr RegrAvgx RegrAvgy RegrCount RegrIntercept RegrR2 RegrSlope RegrSxx
RegrSxy RegrSyy RegrValx RegrValy Repeat Replace Reverse Right Rint Round RowNumber
RtrimmedLength SHA SHA1Digest SHA2 SHA2Digest SafeAdd SafeConvertBytesToString SafeDivide
SafeMultiply SafeNegate SafeSubtract Search SearchIp Sec Sech Second SessionUser Shuffle
Sign Sin Sinh Skewness Soundex SoundexP123 Space Split SplitPart SplitToTable Sqrt
StDistance StPoint StandardHash StartsWith Stddev StddevPop StddevSamp StrPosition StrToDate
StrToMap StrToTime StrToUnix String StringToArray StripNullValue Strtok StrtokSplitToTable
StrtokToArray Struct StructExtract Stuff Substring SubstringIndex Sum Systimestamp Tan Tanh
Time TimeAdd TimeDiff TimeFromParts TimeSlice TimeStrToDate TimeStrToTime TimeStrToUnix
TimeSub TimeToStr TimeToTimeStr TimeToUnix TimeTrunc Timestamp TimestampAdd TimestampDiff
TimestampFromParts TimestampLtzFromParts TimestampSub TimestampTrunc TimestampTzFromParts
ToArray ToBase32 ToBase64 ToBinary ToBoolean ToChar ToCodePoints ToDays ToDecfloat ToDouble
ToMap ToNumber ToVariant Translate Trim Trunc Try TryBase64DecodeBinary
TryBase64DecodeString TryCast TryHexDecodeBinary TryHexDecodeString TryToDecfloat TsOrDiToDi
TsOrDsAdd TsOrDsDiff TsOrDsToDate TsOrDsToDateStr TsOrDsToDatetime TsOrDsToTime
TsOrDsToTimestamp Typeof Unhex Unicode UnixDate UnixMicros UnixMillis UnixSeconds UnixToStr
UnixToTime UnixToTimeStr Unnest Upper UtcDate UtcTime UtcTimestamp Uuid VarMap Variance
VariancePop Week WeekOfYear WeekStart WeightString WidthBucket XMLElement XMLGet Xor Year
YearOfWeek YearOfWeekIso
    """.split()
)


def function_verdict(name: str, qualifier: str | None = None) -> str | None:
    """``"delete"`` for a known side-effect function, ``None`` for a pure one, ``"write"``
    for anything else. ``qualifier`` is the schema or package (``dbms_pipe`` in
    ``dbms_pipe.send_message``)."""
    low = name.lower()
    owner = (qualifier or "").lower()
    if low in DANGEROUS_FUNCTIONS or low.startswith(DANGEROUS_PREFIXES):
        return "delete"
    if owner.startswith(DANGEROUS_PREFIXES):
        return "delete"
    if owner in ("", "pg_catalog", "public", "information_schema") and low in PURE_FUNCTIONS:
        return None
    return "write"
