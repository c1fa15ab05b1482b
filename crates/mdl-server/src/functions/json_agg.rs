//! `JSON_ARRAYAGG(value)` and `JSON_OBJECTAGG(key, value)` (the manual's 12.20.1 "Aggregate
//! Function Descriptions"; `Item_sum_json_array` / `Item_sum_json_object`, `sql/item_sum.cc`),
//! in MySQL's text where SQLite's `json_group_array` / `json_group_object` write `[1,2]`.
//!
//! * Values are read as the JSON functions read them (`json_more::value`): NULL is `null`, a
//!   JSON result, a `JSON` column or a boolean (marked by the rewrite: `json_marks.rs`) is
//!   JSON, any other string a JSON string.
//! * A group without rows gives NULL; a NULL key is error 3158; of duplicate keys the last
//!   wins (the manual's "Normalization, Merging, and Autowrapping of JSON Values").
//! * Differs: not usable as window functions (`OVER (...)`).

use rusqlite::functions::{Aggregate, Context};
use rusqlite::types::Value;
use serde_json::{Map, Value as Json};

use super::json::{fail, json_flags, json_result};
use super::json_more::{value, Out};

/// Registers the aggregates on `db`.
pub(super) fn register(db: &rusqlite::Connection) -> rusqlite::Result<()> {
    db.create_aggregate_function("JSON_ARRAYAGG", 1, json_flags(), ArrayAgg)?;
    db.create_aggregate_function("JSON_OBJECTAGG", 2, json_flags(), ObjectAgg)
}

struct ArrayAgg;

impl Aggregate<Vec<Json>, Out> for ArrayAgg {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<Vec<Json>> {
        Ok(Vec::new())
    }

    fn step(&self, ctx: &mut Context<'_>, acc: &mut Vec<Json>) -> rusqlite::Result<()> {
        acc.push(value(ctx, 0, "json_arrayagg")?);
        Ok(())
    }

    fn finalize(&self, _: &mut Context<'_>, acc: Option<Vec<Json>>) -> rusqlite::Result<Out> {
        Ok(acc.map_or((Value::Null, None), |a| json_result(&Json::Array(a))))
    }
}

struct ObjectAgg;

impl Aggregate<Map<String, Json>, Out> for ObjectAgg {
    fn init(&self, _: &mut Context<'_>) -> rusqlite::Result<Map<String, Json>> {
        Ok(Map::new())
    }

    fn step(&self, ctx: &mut Context<'_>, acc: &mut Map<String, Json>) -> rusqlite::Result<()> {
        let Some(key) = super::text(ctx, 0) else {
            return Err(fail(
                "JSON documents may not contain NULL member names.".into(),
            ));
        };
        acc.insert(key, value(ctx, 1, "json_objectagg")?);
        Ok(())
    }

    fn finalize(
        &self,
        _: &mut Context<'_>,
        acc: Option<Map<String, Json>>,
    ) -> rusqlite::Result<Out> {
        Ok(acc.map_or((Value::Null, None), |m| json_result(&Json::Object(m))))
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::db;
    use rusqlite::types::Value;

    #[test]
    fn aggregates_answer_as_mysqls_manual() {
        let db = db();
        db.execute_batch(
            "CREATE TABLE t (o_id INT, attribute TEXT, value TEXT);
             INSERT INTO t VALUES (2, 'color', 'red'), (2, 'fabric', 'silk'),
                                  (3, 'color', 'green'), (3, 'shape', 'square');",
        )
        .unwrap();
        let rows = |sql: &str| -> Vec<(i64, String)> {
            let mut st = db.prepare(sql).unwrap();
            let r = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
            r.collect::<Result<_, _>>().unwrap()
        };
        // 12.20.1's examples.
        assert_eq!(
            rows("SELECT o_id, JSON_ARRAYAGG(attribute) FROM t GROUP BY o_id"),
            [
                (2, r#"["color", "fabric"]"#.into()),
                (3, r#"["color", "shape"]"#.into())
            ]
        );
        assert_eq!(
            rows("SELECT o_id, JSON_OBJECTAGG(attribute, value) FROM t GROUP BY o_id"),
            [
                (2, r#"{"color": "red", "fabric": "silk"}"#.into()),
                (3, r#"{"color": "green", "shape": "square"}"#.into())
            ]
        );
        let one = |sql: &str| db.query_row(sql, [], |r| r.get::<_, Value>(0));
        assert_eq!(
            one("SELECT JSON_ARRAYAGG(JSON_OBJECT('k', o_id)) FROM t WHERE o_id = 2").unwrap(),
            Value::Text(r#"[{"k": 2}, {"k": 2}]"#.into())
        );
        assert_eq!(
            one("SELECT JSON_ARRAYAGG(o_id) FROM t WHERE 0").unwrap(),
            Value::Null
        );
        let err = one("SELECT JSON_OBJECTAGG(NULL, 1) FROM t");
        assert!(format!("{err:?}").contains("NULL member names"), "{err:?}");
    }
}
