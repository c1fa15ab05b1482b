//! Every error number this server can send or raise (errors, and the warnings and notes of
//! `execute/notes.rs` and `diagnostics`), with MySQL 8.0's name and SQLSTATE for it
//! (`share/messages_to_clients.txt`, as `mysqld_ername.h` lists them): the rows of the
//! `performance_schema.events_errors_summary_*_by_error` tables (`pfs::register_errors`).
//! An error outside this list counts in those tables' NULL row, as in MySQL; a test below
//! keeps the list complete against the codes written in this crate and in `mdl-sql`.
//!
//! The SQLSTATE is MySQL's for the number, the one the server sends with it.

use pfs::KnownError;

const fn e(number: u32, name: &'static str, sql_state: &'static str) -> KnownError {
    KnownError::new(number, name, sql_state)
}

/// The list, by number.
pub(crate) static KNOWN_ERRORS: [KnownError; 118] = [
    e(1007, "ER_DB_CREATE_EXISTS", "HY000"),
    e(1008, "ER_DB_DROP_EXISTS", "HY000"),
    e(1044, "ER_DBACCESS_DENIED_ERROR", "42000"),
    e(1046, "ER_NO_DB_ERROR", "3D000"),
    e(1048, "ER_BAD_NULL_ERROR", "23000"),
    e(1049, "ER_BAD_DB_ERROR", "42000"),
    e(1050, "ER_TABLE_EXISTS_ERROR", "42S01"),
    e(1051, "ER_BAD_TABLE_ERROR", "42S02"),
    e(1052, "ER_NON_UNIQ_ERROR", "23000"),
    e(1054, "ER_BAD_FIELD_ERROR", "42S22"),
    e(1059, "ER_TOO_LONG_IDENT", "42000"),
    e(1060, "ER_DUP_FIELDNAME", "42S21"),
    e(1061, "ER_DUP_KEYNAME", "42000"),
    e(1062, "ER_DUP_ENTRY", "23000"),
    e(1064, "ER_PARSE_ERROR", "42000"),
    e(1065, "ER_EMPTY_QUERY", "42000"),
    e(1067, "ER_INVALID_DEFAULT", "42000"),
    e(1068, "ER_MULTIPLE_PRI_KEY", "42000"),
    e(1072, "ER_KEY_COLUMN_DOES_NOT_EXITS", "42000"),
    e(1091, "ER_CANT_DROP_FIELD_OR_KEY", "42000"),
    e(1094, "ER_NO_SUCH_THREAD", "HY000"),
    e(1096, "ER_NO_TABLES_USED", "HY000"),
    e(1099, "ER_TABLE_NOT_LOCKED_FOR_WRITE", "HY000"),
    e(1100, "ER_TABLE_NOT_LOCKED", "HY000"),
    e(1102, "ER_WRONG_DB_NAME", "42000"),
    e(1103, "ER_WRONG_TABLE_NAME", "42000"),
    e(1105, "ER_UNKNOWN_ERROR", "HY000"),
    e(1109, "ER_UNKNOWN_TABLE", "42S02"),
    e(1113, "ER_TABLE_MUST_HAVE_COLUMNS", "42000"),
    e(1115, "ER_UNKNOWN_CHARACTER_SET", "42000"),
    e(1136, "ER_WRONG_VALUE_COUNT_ON_ROW", "21S01"),
    e(1137, "ER_CANT_REOPEN_TABLE", "HY000"),
    e(1142, "ER_TABLEACCESS_DENIED_ERROR", "42000"),
    e(1146, "ER_NO_SUCH_TABLE", "42S02"),
    e(1166, "ER_WRONG_COLUMN_NAME", "42000"),
    e(1172, "ER_TOO_MANY_ROWS", "42000"),
    e(1176, "ER_KEY_DOES_NOT_EXITS", "42000"),
    e(1192, "ER_LOCK_OR_ACTIVE_TRANSACTION", "HY000"),
    e(1193, "ER_UNKNOWN_SYSTEM_VARIABLE", "HY000"),
    e(1205, "ER_LOCK_WAIT_TIMEOUT", "HY000"),
    e(1210, "ER_WRONG_ARGUMENTS", "HY000"),
    e(1213, "ER_LOCK_DEADLOCK", "40001"),
    e(1215, "ER_CANNOT_ADD_FOREIGN", "HY000"),
    e(1222, "ER_WRONG_NUMBER_OF_COLUMNS_IN_SELECT", "21000"),
    e(1223, "ER_CANT_UPDATE_WITH_READLOCK", "HY000"),
    e(1231, "ER_WRONG_VALUE_FOR_VAR", "42000"),
    e(1232, "ER_WRONG_TYPE_FOR_VAR", "42000"),
    e(1234, "ER_CANT_USE_OPTION_HERE", "42000"),
    e(1235, "ER_NOT_SUPPORTED_YET", "42000"),
    e(1239, "ER_WRONG_FK_DEF", "42000"),
    e(1241, "ER_OPERAND_COLUMNS", "21000"),
    e(1243, "ER_UNKNOWN_STMT_HANDLER", "HY000"),
    e(1264, "ER_WARN_DATA_OUT_OF_RANGE", "22003"),
    e(1265, "WARN_DATA_TRUNCATED", "01000"),
    e(1273, "ER_UNKNOWN_COLLATION", "HY000"),
    e(1280, "ER_WRONG_NAME_FOR_INDEX", "42000"),
    e(1286, "ER_UNKNOWN_STORAGE_ENGINE", "42000"),
    e(1288, "ER_NON_UPDATABLE_TABLE", "HY000"),
    e(1290, "ER_OPTION_PREVENTS_STATEMENT", "HY000"),
    e(1292, "ER_TRUNCATED_WRONG_VALUE", "22007"),
    e(1294, "ER_INVALID_ON_UPDATE", "HY000"),
    e(1295, "ER_UNSUPPORTED_PS", "HY000"),
    e(1298, "ER_UNKNOWN_TIME_ZONE", "HY000"),
    e(1305, "ER_SP_DOES_NOT_EXIST", "42000"),
    e(1317, "ER_QUERY_INTERRUPTED", "70100"),
    e(1327, "ER_SP_UNDECLARED_VAR", "42000"),
    e(1347, "ER_WRONG_OBJECT", "HY000"),
    e(1351, "ER_VIEW_SELECT_VARIABLE", "HY000"),
    e(1352, "ER_VIEW_SELECT_TMPTABLE", "HY000"),
    e(1353, "ER_VIEW_WRONG_LIST", "HY000"),
    e(1356, "ER_VIEW_INVALID", "HY000"),
    e(1364, "ER_NO_DEFAULT_FOR_FIELD", "HY000"),
    e(1365, "ER_DIVISION_BY_ZERO", "22012"),
    e(1366, "ER_TRUNCATED_WRONG_VALUE_FOR_FIELD", "HY000"),
    e(1381, "ER_NO_BINARY_LOGGING", "HY000"),
    e(1406, "ER_DATA_TOO_LONG", "22001"),
    e(1412, "ER_TABLE_DEF_CHANGED", "HY000"),
    e(1426, "ER_TOO_BIG_PRECISION", "42000"),
    e(1436, "ER_STACK_OVERRUN_NEED_MORE", "HY000"),
    e(1451, "ER_ROW_IS_REFERENCED_2", "23000"),
    e(1452, "ER_NO_REFERENCED_ROW_2", "23000"),
    e(1462, "ER_VIEW_RECURSIVE", "HY000"),
    e(1471, "ER_NON_INSERTABLE_TABLE", "HY000"),
    e(1553, "ER_DROP_INDEX_FK", "HY000"),
    e(1582, "ER_WRONG_PARAMCOUNT_TO_NATIVE_FCT", "42000"),
    e(1690, "ER_DATA_OUT_OF_RANGE", "22003"),
    e(1701, "ER_TRUNCATE_ILLEGAL_FK", "42000"),
    e(1758, "ER_DA_INVALID_CONDITION_NUMBER", "35000"),
    e(1792, "ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION", "25006"),
    e(1822, "ER_FK_NO_INDEX_PARENT", "HY000"),
    e(1824, "ER_FK_CANNOT_OPEN_PARENT", "HY000"),
    e(1826, "ER_FK_DUP_NAME", "HY000"),
    e(1828, "ER_FK_COLUMN_CANNOT_DROP", "HY000"),
    e(1829, "ER_FK_COLUMN_CANNOT_DROP_CHILD", "HY000"),
    e(1830, "ER_FK_COLUMN_NOT_NULL", "HY000"),
    e(1835, "ER_MALFORMED_PACKET", "HY000"),
    e(3004, "ER_GET_STACKED_DA_WITHOUT_ACTIVE_HANDLER", "0Z002"),
    e(3032, "ER_SERVER_OFFLINE_MODE", "HY000"),
    e(3057, "ER_USER_LOCK_WRONG_NAME", "42000"),
    e(3058, "ER_USER_LOCK_DEADLOCK", "HY000"),
    e(3074, "ER_SLAVE_CHANNEL_DOES_NOT_EXIST", "HY000"),
    e(3140, "ER_INVALID_JSON_TEXT", "22032"),
    e(3141, "ER_INVALID_JSON_TEXT_IN_PARAM", "22032"),
    e(3143, "ER_INVALID_JSON_PATH", "42000"),
    e(3149, "ER_INVALID_JSON_PATH_WILDCARD", "42000"),
    e(3153, "ER_JSON_VACUOUS_PATH", "42000"),
    e(3154, "ER_JSON_BAD_ONE_OR_ALL_ARG", "42000"),
    e(3157, "ER_JSON_DOCUMENT_TOO_DEEP", "22032"),
    e(3158, "ER_JSON_DOCUMENT_NULL_KEY", "22032"),
    e(3165, "ER_INVALID_JSON_PATH_ARRAY_CELL", "42000"),
    e(3177, "ER_LOCK_REFUSED_BY_ENGINE", "HY000"),
    e(3572, "ER_LOCK_NOWAIT", "HY000"),
    e(3685, "ER_REGEXP_ILLEGAL_ARGUMENT", "HY000"),
    e(3730, "ER_FK_CANNOT_DROP_PARENT", "HY000"),
    e(3734, "ER_FK_NO_COLUMN_PARENT", "HY000"),
    e(3819, "ER_CHECK_CONSTRAINT_VIOLATED", "HY000"),
    e(3948, "ER_CLIENT_LOCAL_FILES_DISABLED", "42000"),
    e(4163, "ER_USER_LOCK_OVERLONG_NAME", "HY000"),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The error codes written in the `.rs` files under `dir`: a 4-digit number before a
    /// SQLSTATE literal, a `const NAME: u16 = NNNN;`, or a condition's `code: NNNN`.
    fn codes_in(dir: &std::path::Path, out: &mut Vec<(u32, String)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                codes_in(&path, out);
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            let words: Vec<&str> = text
                .split(|c: char| c.is_whitespace() || c == '(' || c == ',')
                .filter(|w| !w.is_empty())
                .collect();
            for (i, w) in words.iter().enumerate() {
                let w = w.trim_end_matches(';');
                let Ok(n) = w.parse::<u32>() else { continue };
                if !(1000..5000).contains(&n) {
                    continue;
                }
                let next = words.get(i + 1).copied().unwrap_or("");
                let before = if i >= 2 {
                    words[i - 2..i].join(" ")
                } else {
                    String::new()
                };
                let sqlstate = next.len() == 7
                    && next.starts_with('"')
                    && next.ends_with('"')
                    && next[1..6].chars().all(|c| c.is_ascii_alphanumeric());
                if sqlstate || before.ends_with("u16 =") || before.ends_with("code:") {
                    out.push((n, path.display().to_string()));
                }
            }
        }
    }

    #[test]
    fn the_list_is_sorted_and_names_every_code_the_server_writes() {
        assert!(KNOWN_ERRORS.windows(2).all(|w| w[0].number < w[1].number));
        assert!(KNOWN_ERRORS
            .iter()
            .all(|e| e.name.len() < 64 && e.sql_state.len() == 5));
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut found = Vec::new();
        codes_in(&root.join("src"), &mut found);
        codes_in(&root.join("../mdl-sql/src"), &mut found);
        assert!(
            found.iter().any(|(n, _)| *n == 1205),
            "the scan finds codes"
        );
        for (n, file) in found {
            assert!(
                KNOWN_ERRORS.iter().any(|e| e.number == n),
                "{file} writes error {n}: add it to KNOWN_ERRORS"
            );
        }
    }
}
