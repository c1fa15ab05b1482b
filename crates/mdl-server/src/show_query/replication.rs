//! The replication `SHOW`s of a server that is no replica and has no replica connected: `SHOW
//! {REPLICA | SLAVE} STATUS [FOR CHANNEL 'name']` and `SHOW {REPLICAS | SLAVE HOSTS}`, no rows
//! under MySQL 8.0's columns. MySQL sends the columns and then a row per configured channel
//! (`show_slave_status` in `sql/rpl_replica.cc`: none when no channel is configured) or per
//! registered replica (`show_replicas` in `sql/rpl_source.cc`). The `SLAVE` forms name the
//! columns with the terms of before 8.0.22 (`rename_fields_use_old_replica_source_terms`,
//! `sql/rpl_utility.cc`). Only the default channel, `''`, exists: another is 3074, as MySQL's
//! `show_slave_status_cmd` says of a channel it does not have.

use sqlparser::tokenizer::Token;

use super::near;
use crate::error::ServerError;

/// `show_slave_status_metadata`'s columns (`sql/rpl_replica.cc`, MySQL 8.0.22 and later).
const REPLICA_STATUS: [&str; 60] = [
    "Replica_IO_State",
    "Source_Host",
    "Source_User",
    "Source_Port",
    "Connect_Retry",
    "Source_Log_File",
    "Read_Source_Log_Pos",
    "Relay_Log_File",
    "Relay_Log_Pos",
    "Relay_Source_Log_File",
    "Replica_IO_Running",
    "Replica_SQL_Running",
    "Replicate_Do_DB",
    "Replicate_Ignore_DB",
    "Replicate_Do_Table",
    "Replicate_Ignore_Table",
    "Replicate_Wild_Do_Table",
    "Replicate_Wild_Ignore_Table",
    "Last_Errno",
    "Last_Error",
    "Skip_Counter",
    "Exec_Source_Log_Pos",
    "Relay_Log_Space",
    "Until_Condition",
    "Until_Log_File",
    "Until_Log_Pos",
    "Source_SSL_Allowed",
    "Source_SSL_CA_File",
    "Source_SSL_CA_Path",
    "Source_SSL_Cert",
    "Source_SSL_Cipher",
    "Source_SSL_Key",
    "Seconds_Behind_Source",
    "Source_SSL_Verify_Server_Cert",
    "Last_IO_Errno",
    "Last_IO_Error",
    "Last_SQL_Errno",
    "Last_SQL_Error",
    "Replicate_Ignore_Server_Ids",
    "Source_Server_Id",
    "Source_UUID",
    "Source_Info_File",
    "SQL_Delay",
    "SQL_Remaining_Delay",
    "Replica_SQL_Running_State",
    "Source_Retry_Count",
    "Source_Bind",
    "Last_IO_Error_Timestamp",
    "Last_SQL_Error_Timestamp",
    "Source_SSL_Crl",
    "Source_SSL_Crlpath",
    "Retrieved_Gtid_Set",
    "Executed_Gtid_Set",
    "Auto_Position",
    "Replicate_Rewrite_DB",
    "Channel_Name",
    "Source_TLS_Version",
    "Source_public_key_path",
    "Get_Source_public_key",
    "Network_Namespace",
];

/// `show_replicas`' columns (`sql/rpl_source.cc`; `User` and `Password` only with
/// `--show-replica-auth-info`, off by default).
const REPLICAS: [&str; 5] = ["Server_Id", "Host", "Port", "Source_Id", "Replica_UUID"];

/// `deprecated_field_map` (`sql/rpl_utility.cc`): a column's name in the `SLAVE` forms, where
/// it differs.
const OLD_NAMES: [(&str, &str); 32] = [
    ("Replica_IO_State", "Slave_IO_State"),
    ("Source_Host", "Master_Host"),
    ("Source_User", "Master_User"),
    ("Source_Port", "Master_Port"),
    ("Source_Log_File", "Master_Log_File"),
    ("Read_Source_Log_Pos", "Read_Master_Log_Pos"),
    ("Relay_Source_Log_File", "Relay_Master_Log_File"),
    ("Replica_IO_Running", "Slave_IO_Running"),
    ("Replica_SQL_Running", "Slave_SQL_Running"),
    ("Exec_Source_Log_Pos", "Exec_Master_Log_Pos"),
    ("Source_SSL_Allowed", "Master_SSL_Allowed"),
    ("Source_SSL_CA_File", "Master_SSL_CA_File"),
    ("Source_SSL_CA_Path", "Master_SSL_CA_Path"),
    ("Source_SSL_Cert", "Master_SSL_Cert"),
    ("Source_SSL_Cipher", "Master_SSL_Cipher"),
    ("Source_SSL_Key", "Master_SSL_Key"),
    ("Seconds_Behind_Source", "Seconds_Behind_Master"),
    (
        "Source_SSL_Verify_Server_Cert",
        "Master_SSL_Verify_Server_Cert",
    ),
    ("Source_Server_Id", "Master_Server_Id"),
    ("Source_UUID", "Master_UUID"),
    ("Source_Info_File", "Master_Info_File"),
    ("Replica_SQL_Running_State", "Slave_SQL_Running_State"),
    ("Source_Retry_Count", "Master_Retry_Count"),
    ("Source_Bind", "Master_Bind"),
    ("Source_SSL_Crl", "Master_SSL_Crl"),
    ("Source_SSL_Crlpath", "Master_SSL_Crlpath"),
    ("Source_TLS_Version", "Master_TLS_Version"),
    ("Source_public_key_path", "Master_public_key_path"),
    ("Get_Source_public_key", "Get_master_public_key"),
    ("Server_Id", "Server_id"),
    ("Source_Id", "Master_id"),
    ("Replica_UUID", "Slave_UUID"),
];

/// The `SELECT` of no rows that answers `tokens` (after `SHOW`, no spaces) if it is one of the
/// module docs' statements; `None` otherwise.
pub(super) fn rewrite(
    tokens: &[&Token],
    word: &dyn Fn(usize) -> String,
) -> Option<Result<String, ServerError>> {
    let (columns, old, rest) = match (word(0).as_str(), word(1).as_str()) {
        ("REPLICA", "STATUS") => (&REPLICA_STATUS[..], false, 2),
        ("SLAVE", "STATUS") => (&REPLICA_STATUS[..], true, 2),
        ("REPLICAS", _) => (&REPLICAS[..], false, 1),
        ("SLAVE", "HOSTS") => (&REPLICAS[..], true, 2),
        _ => return None,
    };
    let rest = &tokens[rest..];
    let status = columns.len() == REPLICA_STATUS.len();
    Some(channel(rest, status).map(|()| no_rows(columns, old)))
}

/// Checks what follows the statement's words: nothing, or for the `STATUS` forms `FOR CHANNEL
/// 'name'` (a string: `opt_channel` in `sql/sql_yacc.yy`) naming the default channel.
fn channel(rest: &[&Token], status: bool) -> Result<(), ServerError> {
    let kw = |i: usize, k: &str| match rest.get(i) {
        Some(Token::Word(w)) => w.quote_style.is_none() && w.value.eq_ignore_ascii_case(k),
        _ => false,
    };
    if rest.is_empty() {
        return Ok(());
    }
    if !(status && kw(0, "FOR") && kw(1, "CHANNEL")) {
        return Err(near(rest.first().copied()));
    }
    let name = match rest.get(2) {
        Some(Token::SingleQuotedString(n) | Token::DoubleQuotedString(n)) => n,
        other => return Err(near(other.copied())),
    };
    if let Some(extra) = rest.get(3) {
        return Err(near(Some(extra)));
    }
    match name.is_empty() {
        true => Ok(()),
        // MySQL folds channel names to lower case, in messages too.
        false => Err(ServerError::new(
            3074,
            "HY000",
            format!(
                "Replication channel '{}' does not exist.",
                name.to_lowercase()
            ),
        )),
    }
}

/// A `SELECT` of no rows under `columns`, by their old names if `old`.
fn no_rows(columns: &[&'static str], old: bool) -> String {
    let name = |c: &'static str| match old {
        true => (OLD_NAMES.iter())
            .find(|(new, _)| *new == c)
            .map_or(c, |(_, o)| *o),
        false => c,
    };
    let list: Vec<String> = (columns.iter())
        .map(|c| format!("NULL AS `{}`", name(c)))
        .collect();
    format!("SELECT {} WHERE 0", list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::show_query::{rewrite, ShowEnv};

    fn run(text: &str) -> Option<Result<String, ServerError>> {
        let env = ShowEnv {
            current: None,
            user: "dba",
            has_schema: &|_| true,
            has_table: &|_, _| true,
            temporary: &|_, _, _| None,
        };
        rewrite(text, &env)
    }

    /// The column names of the `SELECT` that answers `text`.
    fn columns(text: &str) -> Vec<String> {
        let q = run(text).expect("ours").expect("no error");
        assert!(q.ends_with(" WHERE 0"), "no rows: {q}");
        (q.split("NULL AS `").skip(1))
            .map(|c| c.split('`').next().unwrap().to_string())
            .collect()
    }

    #[test]
    fn status_columns_in_both_terms() {
        let new = columns("SHOW REPLICA STATUS");
        assert_eq!(new.len(), 60);
        assert_eq!(new[..3], ["Replica_IO_State", "Source_Host", "Source_User"]);
        assert_eq!(new[59], "Network_Namespace");
        let old = columns("show slave status;");
        assert_eq!(old.len(), 60);
        assert_eq!(old[..3], ["Slave_IO_State", "Master_Host", "Master_User"]);
        assert!(old.contains(&"Seconds_Behind_Master".to_string()));
        assert!(old.contains(&"Relay_Master_Log_File".to_string()));
        assert_eq!(
            old[55..59],
            [
                "Channel_Name",
                "Master_TLS_Version",
                "Master_public_key_path",
                "Get_master_public_key"
            ]
        );
        assert!(
            old.iter()
                .all(|c| !c.contains("Source") && !c.contains("Replica_")),
            "{old:?}"
        );
        assert_eq!(columns("SHOW REPLICA STATUS FOR CHANNEL ''").len(), 60);
    }

    #[test]
    fn replicas_columns_in_both_terms() {
        assert_eq!(columns("SHOW REPLICAS"), REPLICAS);
        assert_eq!(
            columns("SHOW SLAVE HOSTS"),
            ["Server_id", "Host", "Port", "Master_id", "Slave_UUID"]
        );
    }

    #[test]
    fn other_channels_and_words_are_errors() {
        let err = |text: &str| run(text).expect("ours").unwrap_err();
        let e = err("SHOW REPLICA STATUS FOR CHANNEL 'Ch1'");
        assert_eq!(
            (e.code, e.message.as_str()),
            (3074, "Replication channel 'ch1' does not exist.")
        );
        assert_eq!(err("SHOW SLAVE STATUS FOR CHANNEL \"x\"").code, 3074);
        for bad in [
            "SHOW REPLICA STATUS FOR CHANNEL ch1",
            "SHOW REPLICA STATUS FOR CHANNEL",
            "SHOW REPLICA STATUS FOR CHANNEL '' x",
            "SHOW SLAVE STATUS LIKE 'x'",
            "SHOW REPLICAS FOR CHANNEL ''",
            "SHOW SLAVE HOSTS x",
        ] {
            assert_eq!(err(bad).code, 1064, "{bad}");
        }
        assert!(run("SHOW SLAVE").is_none());
        assert!(run("SHOW REPLICA").is_none());
    }

    #[test]
    fn old_names_are_columns() {
        for (new, _) in OLD_NAMES {
            assert!(
                REPLICA_STATUS.contains(&new) || REPLICAS.contains(&new),
                "{new}"
            );
        }
    }
}
