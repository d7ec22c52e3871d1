// Trino's functions, and which of them this project serves: the allow-list of the SQL gate (issue 7).
// A call passes the gate only if its name is here with `supported: true`; anything else is
// FUNCTION_NOT_FOUND, as in Trino, even when DuckDB has a function of that name (read_csv, glob,
// list_*, duckdb_*, the project's own vivace_* macros...). Pure data: no DuckDB here.
//
// Source: Trino's documentation (docs/src/main/sphinx/functions/list.md, list-by-topic.md and the
// topic pages: aggregate.md for aggregates, window.md for window functions, table.md for table
// functions). Presto-only functions would be listed too, but the project maps none that Trino lacks.
//
// A function is supported when a call with Trino's meaning works on the project's engine:
//   via 'macro'   a TEMP macro of CONNECTION_SETUP_SQL (lib/engine/presto-functions.ts), shadowing any
//                 DuckDB builtin of that name;
//   via 'rewrite' an AST rewrite (lib/engine/presto-ast.ts: lambdas, format, date_parse, ...);
//   via 'duckdb'  DuckDB's builtin of the same name, whose meaning matches Trino's for normal arguments;
//   via 'parser'  DuckDB's parser reads the call as an expression (COALESCE, NULLIF, IF, TRY).
// Where DuckDB has the name with another meaning (repeat, millisecond, md5, url_encode, to_milliseconds,
// skewness...) the function is not supported and `note` says how they differ.
// spec/sql/function-catalog.spec.ts proves every supported entry binds on a real engine.

export type FunctionKind = 'scalar' | 'aggregate' | 'window' | 'table';

/** How the engine serves a supported function. */
export type FunctionVia = 'duckdb' | 'macro' | 'rewrite' | 'parser';

export interface CatalogFunction {
  /** Lower case, as Trino resolves function names. */
  name: string;
  kind: FunctionKind;
  supported: boolean;
  /** Set when supported. */
  via?: FunctionVia;
  /** Known differences from Trino (supported), or why the function is not served (unsupported). */
  note?: string;
}

type Row = readonly [name: string, supported: FunctionVia | false, note?: string];

// ---------------------------------------------------------------------------------------------------
// Aggregate functions (aggregate.md and the topic pages). Every aggregate is also a window function.
const AGGREGATE: readonly Row[] = [
  ['any_value', 'duckdb'],
  ['approx_distinct', 'macro', 'exact count(DISTINCT x); the error argument is ignored'],
  ['approx_most_frequent', false],
  ['approx_percentile', 'macro', 'exact quantile_disc; no weighted form, no array of percentages'],
  ['approx_set', 'rewrite', "Trino's HyperLogLog (4096 buckets) over list(x), byte for byte; no max-error argument"],
  ['arbitrary', 'macro'],
  ['array_agg', 'duckdb'],
  ['avg', 'duckdb'],
  ['bitwise_and_agg', false, 'DuckDB calls it bit_and'],
  ['bitwise_or_agg', false, 'DuckDB calls it bit_or'],
  ['bitwise_xor_agg', false, 'DuckDB calls it bit_xor'],
  ['bool_and', 'duckdb'],
  ['bool_or', 'duckdb'],
  ['checksum', false],
  ['collect', false, 'multiset type'],
  ['convex_hull_agg', false, 'geospatial'],
  ['corr', 'duckdb'],
  ['count', 'duckdb'],
  ['count_if', 'macro'],
  ['covar_pop', 'duckdb'],
  ['covar_samp', 'duckdb'],
  ['evaluate_classifier_predictions', false, 'machine learning'],
  ['every', 'macro'],
  ['fusion', false, 'multiset type'],
  ['geometric_mean', 'duckdb'],
  ['geometry_collect_agg', false, 'geospatial'],
  ['geometry_union_agg', false, 'geospatial'],
  ['histogram', 'macro'],
  ['intersection', false, 'multiset type'],
  ['kurtosis', 'duckdb'],
  ['learn_classifier', false, 'machine learning'],
  ['learn_libsvm_classifier', false, 'machine learning'],
  ['learn_libsvm_regressor', false, 'machine learning'],
  ['learn_regressor', false, 'machine learning'],
  ['listagg', false, "Trino's LISTAGG(x, sep) WITHIN GROUP (ORDER BY ...) is not parsed yet; DuckDB spells it listagg(x, sep ORDER BY ...)"],
  ['make_set_digest', 'rewrite', "Trino's SetDigest over list(x), byte for byte"],
  ['map_agg', 'macro', 'NULL keys skipped'],
  ['map_union', false],
  ['max', 'duckdb', 'max(x, n) included'],
  ['max_by', 'duckdb', 'max_by(x, y, n) included'],
  ['merge', 'rewrite', 'HyperLogLog and tdigest (not qdigest), over list(x)'],
  ['merge_set_digest', 'rewrite', 'over list(x)'],
  ['min', 'duckdb', 'min(x, n) included'],
  ['min_by', 'duckdb', 'min_by(x, y, n) included'],
  ['multimap_agg', false],
  ['numeric_histogram', false],
  ['qdigest_agg', false, 'qdigest type'],
  ['reduce_agg', false],
  ['regr_intercept', 'duckdb'],
  ['regr_slope', 'duckdb'],
  ['skewness', false, "DuckDB's skewness is the bias-corrected sample skewness; Trino's is the population (Fisher-Pearson) coefficient"],
  ['spatial_partitioning', false, 'geospatial'],
  ['stddev', 'duckdb'],
  ['stddev_pop', 'duckdb'],
  ['stddev_samp', 'duckdb'],
  ['sum', 'duckdb', 'sum of integers is typed decimal(38,0) (Trino: bigint)'],
  ['tdigest_agg', 'rewrite', "airlift's TDigest over list(x) in row order (Trino merges its drivers' partial digests)"],
  ['theta_sketch_union', false, 'datasketches'],
  ['var_pop', 'duckdb'],
  ['var_samp', 'duckdb'],
  ['variance', 'duckdb'],
];

// Window functions (window.md): only with OVER.
const WINDOW: readonly Row[] = [
  ['cume_dist', 'duckdb'],
  ['dense_rank', 'duckdb'],
  ['first_value', 'duckdb'],
  ['lag', 'duckdb'],
  ['last_value', 'duckdb'],
  ['lead', 'duckdb'],
  ['nth_value', 'duckdb'],
  ['ntile', 'duckdb'],
  ['percent_rank', 'duckdb'],
  ['rank', 'duckdb'],
  ['row_number', 'duckdb'],
];

// Table functions (table.md): only inside TABLE(...) in FROM.
const TABLE: readonly Row[] = [
  ['exclude_columns', false, 'DuckDB spells it SELECT * EXCLUDE (...); not translated'],
  ['sequence', 'rewrite', "Trino's table function: column sequential_number, start (default 0) to stop inclusive by step (default 1), over DuckDB's generate_series"],
];

// ---------------------------------------------------------------------------------------------------
// Scalar functions, by topic page.
const SCALAR: readonly Row[] = [
  // conditional.md: plain calls in Trino's parse tree
  ['coalesce', 'parser'],
  ['if', 'parser', 'if(c, x) is completed to if(c, x, NULL)'],
  ['nullif', 'parser'],
  ['try', 'parser', 'divisions inside TRY are NULL on zero; DuckDB refuses volatile functions inside TRY'],
  // conversion.md
  ['format', 'rewrite', "printf: Java-only conversions (%,d, %n, %t) differ"],
  ['format_number', false],
  ['parse_data_size', false],
  ['typeof', 'macro', 'arrays nested in maps or rows keep DuckDB names'],
  // comparison.md
  ['greatest', 'duckdb', 'DuckDB skips NULL arguments (Trino: NULL if any argument is NULL)'],
  ['least', 'duckdb', 'DuckDB skips NULL arguments (Trino: NULL if any argument is NULL)'],
  // math.md
  ['abs', 'duckdb'],
  ['acos', 'duckdb'],
  ['asin', 'duckdb'],
  ['atan', 'duckdb'],
  ['atan2', 'duckdb'],
  ['beta_cdf', false],
  ['cbrt', 'duckdb', 'not correctly rounded: cbrt(27) is 3.0000000000000004'],
  ['ceil', 'duckdb'],
  ['ceiling', 'duckdb'],
  ['cos', 'duckdb'],
  ['cosh', 'duckdb'],
  ['cosine_distance', false, 'DuckDB calls it list_cosine_distance (arrays only)'],
  ['cosine_similarity', false, 'DuckDB calls it list_cosine_similarity (arrays only)'],
  ['degrees', 'duckdb'],
  ['dot_product', false],
  ['e', 'macro'],
  ['euclidean_distance', false],
  ['exp', 'duckdb'],
  ['floor', 'duckdb'],
  ['from_base', false],
  ['infinity', 'macro'],
  ['inverse_beta_cdf', false],
  ['inverse_normal_cdf', false],
  ['is_finite', 'macro'],
  ['is_infinite', 'macro'],
  ['is_nan', 'macro'],
  ['ln', 'duckdb', 'ln(0) fails (Trino: -Infinity)'],
  ['log', 'duckdb', 'log(b, x) as in Trino; DuckDB also accepts log(x) (base 10), which Trino lacks'],
  ['log10', 'duckdb'],
  ['log2', 'duckdb'],
  ['mod', 'duckdb'],
  ['nan', 'macro'],
  ['normal_cdf', false],
  ['pi', 'duckdb'],
  ['pow', 'duckdb'],
  ['power', 'duckdb'],
  ['radians', 'duckdb'],
  ['rand', false, 'DuckDB has random() only'],
  ['random', 'duckdb', 'random() only: random(n) and random(m, n) are missing'],
  ['round', 'duckdb'],
  ['sign', 'duckdb'],
  ['sin', 'duckdb'],
  ['sinh', 'duckdb'],
  ['sqrt', 'duckdb', 'sqrt of a negative number fails (Trino: NaN)'],
  ['t_cdf', false],
  ['t_pdf', false],
  ['tan', 'duckdb'],
  ['tanh', 'duckdb'],
  ['to_base', false, "DuckDB's to_base writes upper-case digits and refuses negative numbers (Trino: to_base(-42, 16) = '-2a')"],
  ['truncate', 'macro'],
  ['width_bucket', false],
  ['wilson_interval_lower', false],
  ['wilson_interval_upper', false],
  // bitwise.md
  ['bit_count', false, "DuckDB's bit_count(x) has no bits argument"],
  ['bitwise_and', 'macro'],
  ['bitwise_left_shift', false],
  ['bitwise_not', 'macro'],
  ['bitwise_or', 'macro'],
  ['bitwise_right_shift', false],
  ['bitwise_right_shift_arithmetic', false],
  ['bitwise_xor', 'macro'],
  // string.md
  ['chr', 'duckdb'],
  ['codepoint', 'macro'],
  ['concat', 'duckdb', 'DuckDB skips NULL arguments (Trino: NULL if any argument is NULL); arrays concatenate as in Trino'],
  ['concat_ws', 'duckdb', 'concat_ws(sep, array) renders the array as text (Trino joins its elements)'],
  ['ends_with', 'duckdb'],
  ['hamming_distance', 'macro'],
  ['length', 'duckdb', 'strings only: length(varbinary) fails'],
  ['levenshtein_distance', 'macro'],
  ['lower', 'duckdb'],
  ['lpad', 'macro', 'target length at most 1,000,000 (Trino: 2,147,483,647): DuckDB builds a constant call\'s string while planning'],
  ['ltrim', 'duckdb'],
  ['luhn_check', false],
  ['normalize', false, 'DuckDB has nfc_normalize only; normalize(s, NFKC) is special syntax'],
  ['replace', 'duckdb', 'replace(s, search) without a replacement fails'],
  ['reverse', 'duckdb', 'strings only: reverse(array) fails'],
  ['rpad', 'macro', 'target length at most 1,000,000 (Trino: 2,147,483,647): DuckDB builds a constant call\'s string while planning'],
  ['rtrim', 'duckdb'],
  ['soundex', false],
  ['split', 'macro'],
  ['split_part', 'duckdb', "an index past the last field is '' (Trino: NULL)"],
  ['split_to_map', false],
  ['split_to_multimap', false],
  ['starts_with', 'duckdb'],
  ['strpos', 'duckdb', 'strpos(s, sub, instance) is missing'],
  ['substr', 'duckdb', "substr(s, 0) is s (Trino: '')"],
  ['substring', 'duckdb', "substring(s, 0) is s (Trino: '')"],
  ['title_case', false],
  ['translate', 'duckdb'],
  ['trim', 'duckdb'],
  ['upper', 'duckdb'],
  ['word_stem', false],
  ['to_utf8', 'macro'],
  ['from_utf8', 'macro', 'invalid UTF-8 fails (Trino replaces it); from_utf8(b, replace) is missing'],
  // regexp.md
  ['regexp_count', 'macro'],
  ['regexp_extract', 'macro', 'RE2, not Java regular expressions'],
  ['regexp_extract_all', 'duckdb', 'RE2, not Java regular expressions'],
  ['regexp_like', 'macro', 'RE2, not Java regular expressions'],
  ['regexp_position', false],
  ['regexp_replace', 'macro', 'RE2; the lambda form is missing'],
  ['regexp_split', 'macro'],
  // binary.md
  ['crc32', false],
  ['from_base32', false],
  ['from_base64', 'duckdb'],
  ['from_base64url', false],
  ['from_big_endian_32', false],
  ['from_big_endian_64', false],
  ['from_hex', 'duckdb'],
  ['from_ieee754_32', false],
  ['from_ieee754_64', false],
  ['hmac_md5', false],
  ['hmac_sha1', false],
  ['hmac_sha256', false],
  ['hmac_sha512', false],
  ['md5', false, "DuckDB's md5 returns hex text (Trino: varbinary of the digest)"],
  ['murmur3', false],
  ['sha1', false, "DuckDB's sha1 returns hex text (Trino: varbinary of the digest)"],
  ['sha256', false, "DuckDB's sha256 returns hex text (Trino: varbinary of the digest)"],
  ['sha512', false],
  ['spooky_hash_v2_32', false],
  ['spooky_hash_v2_64', false],
  ['to_base32', false],
  ['to_base64', 'duckdb'],
  ['to_base64url', false],
  ['to_big_endian_32', false],
  ['to_big_endian_64', false],
  ['to_hex', 'duckdb'],
  ['to_ieee754_32', false],
  ['to_ieee754_64', false],
  ['xxhash64', false],
  ['zstd_compress', false],
  ['zstd_decompress', false],
  // datetime.md
  ['at_timezone', 'rewrite'],
  ['current_timezone', 'rewrite'],
  ['date', false, 'DuckDB has no date(x); CAST(x AS date) works'],
  ['date_add', 'macro', 'a time unit on a date is truncated instead of failing'],
  ['date_diff', 'macro'],
  ['date_format', 'macro', '%D, %U, %u, %V, %X unsupported'],
  ['date_parse', 'rewrite', 'the format must be a constant'],
  ['date_trunc', 'macro'],
  ['day', 'duckdb'],
  ['day_of_month', false, 'DuckDB calls it dayofmonth'],
  ['day_of_week', 'macro'],
  ['day_of_year', 'macro'],
  ['dow', 'macro'],
  ['doy', 'macro'],
  ['format_datetime', false, "Joda-Time patterns (yyyy-MM-dd): the project's macro hands them to strftime, which prints them unchanged"],
  ['from_iso8601_date', 'macro'],
  ['from_iso8601_timestamp', 'rewrite'],
  ['from_iso8601_timestamp_nanos', false],
  ['from_unixtime', 'rewrite'],
  ['from_unixtime_nanos', false],
  ['hour', 'duckdb'],
  ['human_readable_seconds', false],
  ['last_day_of_month', 'macro'],
  ['millisecond', false, "DuckDB's millisecond counts the seconds too (5.321 s gives 5321; Trino: 321)"],
  ['minute', 'duckdb'],
  ['month', 'duckdb'],
  ['now', 'rewrite'],
  ['parse_datetime', false, 'Joda-Time patterns'],
  ['parse_duration', false],
  ['quarter', 'duckdb'],
  ['second', 'duckdb'],
  ['timezone', false, "DuckDB's timezone(x) is the offset in seconds, timezone(zone, x) a conversion (Trino: the zone's name)"],
  ['timezone_hour', 'rewrite'],
  ['timezone_minute', 'rewrite'],
  ['to_iso8601', 'macro'],
  ['to_milliseconds', false, "DuckDB's to_milliseconds(n) builds an interval (Trino: an interval's length in milliseconds)"],
  ['to_unixtime', 'macro'],
  ['week', 'duckdb'],
  ['week_of_year', 'macro'],
  ['with_timezone', 'rewrite'],
  ['year', 'duckdb'],
  ['year_of_week', 'macro'],
  ['yow', 'macro'],
  // array.md and lambda.md
  ['all_match', 'rewrite', 'NULL results of the predicate are ignored (Trino may answer NULL)'],
  ['any_match', 'rewrite', 'NULL results of the predicate are ignored (Trino may answer NULL)'],
  ['array_distinct', 'macro'],
  ['array_except', 'macro'],
  ['array_first', false],
  ['array_histogram', false],
  ['array_intersect', 'macro'],
  ['array_join', 'macro'],
  ['array_last', false],
  ['array_max', 'macro'],
  ['array_min', 'macro'],
  ['array_position', 'macro', 'array_position(a, x, instance) is missing'],
  ['array_remove', 'macro'],
  ['array_sort', 'duckdb', 'the comparator form array_sort(a, (x, y) -> ...) is missing'],
  ['array_union', 'macro'],
  ['arrays_overlap', 'macro'],
  ['cardinality', 'macro', 'arrays, maps, HyperLogLog and SetDigest'],
  ['combinations', false],
  ['contains', 'duckdb', 'arrays; contains(network, address) needs the IPADDRESS type, which the project lacks'],
  ['contains_sequence', false],
  ['element_at', 'macro', 'index 0 is NULL (Trino fails)'],
  ['filter', 'duckdb'],
  ['flatten', 'duckdb'],
  ['ngrams', false],
  ['none_match', 'rewrite', 'NULL results of the predicate are ignored (Trino may answer NULL)'],
  ['reduce', 'rewrite'],
  ['repeat', 'macro', 'count at most 10,000 and 1,000,000 bytes, as Presto (Trino: 100,000 and 4 MB)'],
  ['sequence', 'macro', 'timestamps follow generate_series'],
  ['shuffle', false],
  ['slice', 'macro'],
  ['transform', 'rewrite'],
  ['trim_array', false],
  ['zip', 'macro', '2 to 4 arrays (Trino: up to 5)'],
  ['zip_with', 'rewrite'],
  // map.md
  ['map', 'duckdb'],
  ['map_concat', 'duckdb'],
  ['map_entries', 'duckdb'],
  ['map_filter', 'rewrite'],
  ['map_from_entries', 'duckdb'],
  ['map_keys', 'duckdb'],
  ['map_values', 'duckdb'],
  ['map_zip_with', false],
  ['multimap_from_entries', false],
  ['transform_keys', 'rewrite', 'a nested lambda reusing a parameter name is substituted too'],
  ['transform_values', 'rewrite', 'a nested lambda reusing a parameter name is substituted too'],
  // json.md (json_exists, json_value, json_query, json_array, json_object are syntax: SYNTAX_FUNCTIONS)
  ['is_json_scalar', false],
  ['json_array_contains', false],
  ['json_array_get', 'macro'],
  ['json_array_length', 'macro'],
  ['json_extract', 'rewrite', "Trino's JSON path given as a literal; a path computed while the query runs is read as DuckDB's"],
  ['json_extract_scalar', 'macro', "Trino's JSON path given as a literal; a path computed while the query runs is read as DuckDB's"],
  ['json_format', 'macro', "DuckDB's canonical JSON text"],
  ['json_parse', 'macro', "DuckDB's canonical JSON text"],
  ['json_size', 'macro', "Trino's JSON path given as a literal; a path computed while the query runs is read as DuckDB's"],
  // url.md
  ['url_decode', false, "DuckDB's url_decode keeps '+' (Trino decodes it to a space)"],
  ['url_encode', false, "DuckDB's url_encode writes a space as %20 (Trino: +)"],
  ['url_extract_fragment', 'macro'],
  ['url_extract_host', 'macro'],
  ['url_extract_parameter', 'macro', 'no percent-decoding'],
  ['url_extract_path', 'macro'],
  ['url_extract_port', 'macro'],
  ['url_extract_protocol', 'macro'],
  ['url_extract_query', 'macro'],
  // uuid.md, session.md, system.md
  ['uuid', 'duckdb'],
  ['current_groups', false],
  ['version', 'rewrite', "Vivace's version (DuckDB's version() would name DuckDB's)"],
  // color.md
  ['bar', false, "DuckDB's bar(x, min, max, width) draws another kind of bar"],
  ['color', false],
  ['render', false],
  ['rgb', false],
  // hyperloglog.md, qdigest.md, tdigest.md, setdigest.md, datasketches.md
  ['empty_approx_set', 'rewrite'],
  ['hash_counts', 'rewrite'],
  ['intersection_cardinality', 'rewrite'],
  ['jaccard_index', 'rewrite'],
  ['theta_sketch_cardinality', false, 'datasketches'],
  ['value_at_quantile', 'rewrite', 'tdigest only (no qdigest)'],
  ['values_at_quantiles', 'rewrite', 'tdigest only (no qdigest)'],
  // multiset.md
  ['element', false, 'multiset type'],
  ['set', false, 'multiset type'],
  // ml.md
  ['classify', false, 'machine learning'],
  ['features', false, 'machine learning'],
  ['regress', false, 'machine learning'],
  // teradata.md
  ['char2hexint', false, 'Teradata function'],
  ['index', false, 'Teradata function'],
  ['to_char', false, 'Teradata function'],
  ['to_date', false, 'Teradata function'],
  ['to_timestamp', false, "Teradata to_timestamp(string, format); DuckDB's to_timestamp(seconds) is another function"],
  // objectid.md (MongoDB)
  ['objectid', false, 'MongoDB ObjectId type'],
  ['objectid_timestamp', false, 'MongoDB ObjectId type'],
  ['timestamp_objectid', false, 'MongoDB ObjectId type'],
  // geospatial.md
  ...[
    'bing_tile', 'bing_tile_at', 'bing_tile_coordinates', 'bing_tile_polygon', 'bing_tile_quadkey', 'bing_tile_zoom_level',
    'bing_tiles_around', 'from_encoded_polyline', 'from_geojson_geometry', 'geometry_from_hadoop_shape', 'geometry_invalid_reason',
    'geometry_nearest_points', 'geometry_to_bing_tiles', 'geometry_union', 'great_circle_distance', 'line_interpolate_point',
    'line_interpolate_points', 'line_locate_point', 'simplify_geometry', 'spatial_partitions', 'to_encoded_polyline',
    'to_geojson_geometry', 'to_geometry', 'to_spherical_geography',
    'st_area', 'st_asbinary', 'st_asewkb', 'st_asewkt', 'st_astext', 'st_boundary', 'st_buffer', 'st_centroid', 'st_collect',
    'st_contains', 'st_convexhull', 'st_coorddim', 'st_crosses', 'st_difference', 'st_dimension', 'st_disjoint', 'st_distance',
    'st_endpoint', 'st_envelope', 'st_envelopeaspts', 'st_equals', 'st_exteriorring', 'st_force2d', 'st_force3d', 'st_geometries',
    'st_geometryfromtext', 'st_geometryn', 'st_geometrytype', 'st_geomfrombinary', 'st_geomfromewkt', 'st_geomfromkml',
    'st_interiorringn', 'st_interiorrings', 'st_intersection', 'st_intersects', 'st_isclosed', 'st_isempty', 'st_isring',
    'st_issimple', 'st_isvalid', 'st_length', 'st_linefromtext', 'st_linemerge', 'st_linestring', 'st_makeline', 'st_makepolygon',
    'st_minimumboundingcircle', 'st_multi', 'st_multipoint', 'st_normalize', 'st_numgeometries', 'st_numinteriorring',
    'st_numpoints', 'st_orientedenvelope', 'st_overlaps', 'st_point', 'st_pointn', 'st_pointonsurface', 'st_points', 'st_polygon',
    'st_polygonize', 'st_reduceprecision', 'st_relate', 'st_setsrid', 'st_srid', 'st_startpoint', 'st_symdifference', 'st_touches',
    'st_transform', 'st_union', 'st_voronoipolygons', 'st_within', 'st_x', 'st_xmax', 'st_xmin', 'st_y', 'st_ymax', 'st_ymin', 'st_z',
  ].map((name): Row => [name, false, 'geospatial']),
];

/**
 * Trino calls that are grammar rather than function calls: the parser builds its own node for each (or,
 * for POSITION, a call of strpos). They need no catalogue entry; this list tells the gate and the
 * translation what each one needs. Names that are also plain functions (substring, trim, listagg,
 * normalize) are in the catalogue too.
 */
export interface SyntaxFunction {
  name: string;
  supported: boolean;
  note: string;
}

export const SYNTAX_FUNCTIONS: readonly SyntaxFunction[] = [
  { name: 'cast', supported: true, note: 'CAST(x AS type): Trino types mapped to DuckDB types' },
  { name: 'try_cast', supported: true, note: 'TRY_CAST(x AS type): DuckDB TRY_CAST' },
  { name: 'extract', supported: true, note: 'EXTRACT(field FROM x): DOW and DAY_OF_WEEK are ISO (DuckDB isodow), YOW and YEAR_OF_WEEK are isoyear, WEEK is the ISO week' },
  { name: 'position', supported: true, note: "POSITION(sub IN s) is strpos(s, sub) in Trino's tree; a plain call position(a, b) is not a Trino function" },
  { name: 'substring', supported: true, note: 'SUBSTRING(s FROM a [FOR n]) is substring(s, a[, n])' },
  { name: 'trim', supported: true, note: 'TRIM([BOTH|LEADING|TRAILING] [chars] FROM s) is trim/ltrim/rtrim(s[, chars])' },
  { name: 'listagg', supported: false, note: "LISTAGG(x[, sep]) WITHIN GROUP (ORDER BY ...): not parsed yet; it would translate to DuckDB's listagg(x, sep ORDER BY ...)" },
  { name: 'grouping', supported: true, note: 'GROUPING(a, ...) with GROUPING SETS, ROLLUP, CUBE: DuckDB grouping()' },
  { name: 'current_date', supported: true, note: 'DuckDB current_date' },
  { name: 'current_time', supported: true, note: 'DuckDB current_time (time with time zone)' },
  { name: 'current_timestamp', supported: true, note: 'in the session zone, timestamp(3) with time zone (current_timestamp(p): p digits, at most microseconds)' },
  { name: 'localtime', supported: true, note: 'DuckDB current_localtime()' },
  { name: 'localtimestamp', supported: true, note: 'DuckDB current_localtimestamp()' },
  { name: 'current_user', supported: false, note: "needs the session's user as a literal: DuckDB's current_user answers 'duckdb'" },
  { name: 'current_catalog', supported: false, note: "needs the session's catalog as a literal: DuckDB's current_catalog names DuckDB's database" },
  { name: 'current_schema', supported: false, note: "needs the session's schema as a literal: DuckDB's current_schema names DuckDB's schema" },
  { name: 'current_path', supported: false, note: 'no SQL path' },
  { name: 'normalize', supported: false, note: 'NORMALIZE(s, NFD|NFC|NFKD|NFKC): DuckDB has nfc_normalize only' },
  { name: 'overlay', supported: false, note: 'OVERLAY(s PLACING r FROM a [FOR n]): DuckDB has no overlay' },
  ...['json_exists', 'json_value', 'json_query', 'json_array', 'json_object', 'json_table'].map((name) => ({
    name,
    supported: false,
    note: "SQL/JSON syntax (PASSING, ON ERROR, ...); DuckDB's functions of these names take other arguments and mean other things",
  })),
  ...['classifier', 'match_number', 'prev', 'next', 'first', 'last', 'permute'].map((name) => ({
    name,
    supported: false,
    note: 'row pattern recognition (MATCH_RECOGNIZE, WINDOW ... MEASURES): not supported',
  })),
];

function entries(kind: FunctionKind, rows: readonly Row[]): CatalogFunction[] {
  return rows.map(([name, via, note]) => ({
    name,
    kind,
    supported: via !== false,
    ...(via === false ? {} : { via }),
    ...(note === undefined ? {} : { note }),
  }));
}

const byName = (a: CatalogFunction, b: CatalogFunction) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0);

/** Every Trino function, supported or not, sorted by name (a name may have two kinds: sequence). */
export const TRINO_FUNCTIONS: readonly CatalogFunction[] = Object.freeze(
  [...entries('aggregate', AGGREGATE), ...entries('window', WINDOW), ...entries('table', TABLE), ...entries('scalar', SCALAR)]
    .sort(byName)
    .map((f) => Object.freeze(f)),
);

const INDEX: ReadonlyMap<string, readonly CatalogFunction[]> = (() => {
  const map = new Map<string, CatalogFunction[]>();
  for (const f of TRINO_FUNCTIONS) {
    const list = map.get(f.name);
    if (list) list.push(f);
    else map.set(f.name, [f]);
  }
  return map;
})();

const NONE: readonly CatalogFunction[] = Object.freeze([]);

/**
 * A function name as Trino compares it: ASCII letters lower-cased, quoted or not. Undefined for a name
 * with characters no Trino function name has (non-ASCII, punctuation): such a call is FUNCTION_NOT_FOUND.
 * ASCII-only on purpose: a non-ASCII letter that lower-cases to ASCII (U+212A KELVIN SIGN -> 'k') must not
 * reach a function whose DuckDB spelling differs from the name the user wrote.
 */
export function normalizeFunctionName(name: string): string | undefined {
  if (name.length === 0 || name.length > 128) return undefined;
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c >= 65 && c <= 90) out += String.fromCharCode(c + 32);
    else if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95) out += name[i];
    else return undefined;
  }
  return out;
}

/** Every catalogue entry of a name (case-insensitive): zero, one, or two (sequence: scalar and table). */
export function lookupFunctions(name: string): readonly CatalogFunction[] {
  const key = normalizeFunctionName(name);
  return (key === undefined ? undefined : INDEX.get(key)) ?? NONE;
}

/**
 * The catalogue entry of a name (case-insensitive). With `kind`, the entry of that kind; without, the
 * entry an expression call means (scalar, aggregate or window), else the table function.
 */
export function lookupFunction(name: string, kind?: FunctionKind): CatalogFunction | undefined {
  const found = lookupFunctions(name);
  if (kind !== undefined) return found.find((f) => f.kind === kind);
  return found.find((f) => f.kind !== 'table') ?? found[0];
}

/**
 * Whether a call may pass the gate. `kind` is where the call stands:
 *   undefined   an expression call: a supported scalar, aggregate or window function;
 *   'scalar'    a supported scalar function;
 *   'aggregate' a supported aggregate (a call with DISTINCT, FILTER or ORDER BY in its arguments);
 *   'window'    a call with OVER: a supported window function or aggregate;
 *   'table'     TABLE(f(...)) in FROM: a supported table function.
 * Table functions are never allowed as expressions, nor expression functions in TABLE(...).
 */
export function isAllowedFunction(name: string, kind?: FunctionKind): boolean {
  return lookupFunctions(name).some((f) => {
    if (!f.supported) return false;
    switch (kind) {
      case undefined:
        return f.kind !== 'table';
      case 'window':
        return f.kind === 'window' || f.kind === 'aggregate';
      default:
        return f.kind === kind;
    }
  });
}

/**
 * The catalogue name a possibly qualified call names, or undefined when the qualification is not one
 * Trino resolves to its built-in functions. Trino keeps them in catalog `system`, schema `builtin`:
 * `abs`, `system.builtin.abs`, and `builtin.abs` when the session catalog is `system` all name `abs`.
 * Any other qualification (DuckDB's `system.main.abs`, `main.abs`, `memory.default.f`) names no function
 * the project serves: FUNCTION_NOT_FOUND. The translation must emit the returned name, never the
 * qualification: DuckDB's `system.main.<name>` reaches the builtin a Presto macro shadows.
 */
export function resolveFunctionName(parts: readonly string[], sessionCatalog?: string): string | undefined {
  const lower = parts.map(normalizeFunctionName);
  if (lower.some((p) => p === undefined)) return undefined;
  const [a, b, c] = lower as string[];
  if (parts.length === 1) return a;
  if (parts.length === 2) return a === 'builtin' && sessionCatalog !== undefined && normalizeFunctionName(sessionCatalog) === 'system' ? b : undefined;
  if (parts.length === 3) return a === 'system' && b === 'builtin' ? c : undefined;
  return undefined;
}

/** The supported functions, sorted by name: what SHOW FUNCTIONS may list. */
export function supportedFunctions(): readonly CatalogFunction[] {
  return TRINO_FUNCTIONS.filter((f) => f.supported);
}
