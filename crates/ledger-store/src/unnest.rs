//! Rows of several tables inserted by one PostgreSQL statement of fixed text.
//!
//! Each column travels as one array parameter and `unnest` turns the arrays back into
//! rows; the tables are chained with data-modifying CTEs
//! (`WITH w0 AS (INSERT ...), w1 AS (INSERT ...) INSERT ...`). The text depends only on
//! the tables and columns, never on the number of rows, so the connection prepares it
//! once and reuses the plan: a group commit's inserts cost one round trip and no parse or
//! plan, where a multi-row `VALUES` insert per table cost one of each per table.

use diesel::QueryResult;
use diesel::pg::Pg;
use diesel::query_builder::{AstPass, QueryFragment, QueryId};
use diesel::sql_types::{Array, BigInt, Bool, Integer, Nullable, Text, Timestamp};
use time::PrimitiveDateTime;

/// One column's values, in row order.
pub(crate) enum Column {
    Text(Vec<String>),
    OptText(Vec<Option<String>>),
    Bool(Vec<bool>),
    BigInt(Vec<i64>),
    Int(Vec<i32>),
    Time(Vec<PrimitiveDateTime>),
    OptTime(Vec<Option<PrimitiveDateTime>>),
}

impl Column {
    /// The array type the parameter is cast to (so `unnest` knows its element type).
    fn array_type(&self) -> &'static str {
        match self {
            Self::Text(_) | Self::OptText(_) => "::text[]",
            Self::Bool(_) => "::bool[]",
            Self::BigInt(_) => "::int8[]",
            Self::Int(_) => "::int4[]",
            Self::Time(_) | Self::OptTime(_) => "::timestamp[]",
        }
    }

    fn push_bind<'b>(&'b self, out: &mut AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        match self {
            Self::Text(v) => out.push_bind_param::<Array<Text>, _>(v),
            Self::OptText(v) => out.push_bind_param::<Array<Nullable<Text>>, _>(v),
            Self::Bool(v) => out.push_bind_param::<Array<Bool>, _>(v),
            Self::BigInt(v) => out.push_bind_param::<Array<BigInt>, _>(v),
            Self::Int(v) => out.push_bind_param::<Array<Integer>, _>(v),
            Self::Time(v) => out.push_bind_param::<Array<Timestamp>, _>(v),
            Self::OptTime(v) => out.push_bind_param::<Array<Nullable<Timestamp>>, _>(v),
        }
    }
}

/// Conversion of a row field into its column kind.
pub(crate) trait IntoColumn: Sized {
    fn column(values: Vec<Self>) -> Column;
}

macro_rules! into_column {
    ($($ty:ty => $kind:ident),+ $(,)?) => {
        $(impl IntoColumn for $ty {
            fn column(values: Vec<Self>) -> Column {
                Column::$kind(values)
            }
        })+
    };
}

into_column!(
    String => Text,
    Option<String> => OptText,
    bool => Bool,
    i64 => BigInt,
    i32 => Int,
    PrimitiveDateTime => Time,
    Option<PrimitiveDateTime> => OptTime,
);

/// One table's rows as columns.
pub(crate) struct TableRows {
    pub(crate) table: &'static str,
    pub(crate) columns: Vec<(&'static str, Column)>,
}

/// `TableRows` of `$rows` (a `Vec` of `$row`, consumed: each field moves into its
/// column), one column per field. The pattern names every field of the row struct (no
/// `..`), so a field added to the struct and not here fails to compile instead of being
/// left out of the insert.
macro_rules! table_rows {
    ($table:literal, $rows:expr, $row:ident { $($field:ident),+ $(,)? }) => {{
        #[expect(dead_code, reason = "a compile-time check, never called")]
        fn names_every_field(r: &$row) {
            let $row { $($field: _),+ } = r;
        }
        let rows: Vec<$row> = $rows;
        // One vector per column, named after its field.
        $(let mut $field = Vec::with_capacity(rows.len());)+
        for row in rows {
            $($field.push(row.$field);)+
        }
        $crate::unnest::TableRows {
            table: $table,
            columns: vec![$((
                stringify!($field),
                $crate::unnest::IntoColumn::column($field),
            )),+],
        }
    }};
}
pub(crate) use table_rows;

/// The statement inserting every table's rows (tables without rows insert nothing).
pub(crate) struct UnnestInsert(pub(crate) Vec<TableRows>);

impl QueryId for UnnestInsert {
    type QueryId = ();
    // The text is cached by its SQL, which is the same for every batch.
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl QueryFragment<Pg> for UnnestInsert {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Pg>) -> QueryResult<()> {
        let last = self.0.len().saturating_sub(1);
        for (i, table) in self.0.iter().enumerate() {
            if i < last {
                out.push_sql(if i == 0 { "WITH " } else { ", " });
                out.push_sql(&format!("w{i} AS ("));
            }
            out.push_sql("INSERT INTO ");
            out.push_identifier(table.table)?;
            out.push_sql(" (");
            for (j, (name, _)) in table.columns.iter().enumerate() {
                if j > 0 {
                    out.push_sql(", ");
                }
                out.push_identifier(name)?;
            }
            out.push_sql(") SELECT * FROM unnest(");
            for (j, (_, column)) in table.columns.iter().enumerate() {
                if j > 0 {
                    out.push_sql(", ");
                }
                column.push_bind(&mut out)?;
                out.push_sql(column.array_type());
            }
            out.push_sql(")");
            if i < last {
                out.push_sql(")");
            }
        }
        Ok(())
    }
}
