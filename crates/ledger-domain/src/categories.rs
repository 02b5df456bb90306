//! Categories (spec 2.6, 4.8): labels for income and expenses, optionally nested.

use crate::ids::names;
use time::OffsetDateTime;

/// What a category classifies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CategoryType {
    Income,
    Expense,
    Other,
}

names!(
    CategoryType,
    loose,
    {
        Income => "income",
        Expense => "expense",
        Other => "other",
    }
);

/// A category of an organization.
#[derive(Debug, Clone, PartialEq)]
pub struct Category {
    pub id: String,
    pub organization_id: String,
    pub livemode: bool,
    pub name: String,
    pub description: Option<String>,
    pub category_type: CategoryType,
    /// `#RRGGBB`, uppercase.
    pub color: String,
    pub is_active: bool,
    pub parent_id: Option<String>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

/// Twelve distinct, readable colours (white text reads on each).
const PALETTE: [&str; 12] = [
    "#1F77B4", "#D62728", "#2CA02C", "#9467BD", "#8C564B", "#E377C2", "#7F7F7F", "#BCBD22",
    "#17BECF", "#FF7F0E", "#393B79", "#637939",
];

/// The colour of a category created without one: a palette entry chosen by a stable hash
/// (FNV-1a) of the name, case-insensitively, so the same name always gets the same colour
/// on every machine and release.
pub fn default_color(name: &str) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.trim().to_lowercase().bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    let index = usize::try_from(hash % PALETTE.len() as u64).unwrap_or(0);
    PALETTE[index].to_owned()
}

/// Normalises a `#RRGGBB` colour to uppercase, or `None` when it is not one.
pub fn parse_color(text: &str) -> Option<String> {
    let hex = text.trim().strip_prefix('#')?;
    (hex.len() == 6 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| format!("#{}", hex.to_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_colours_are_stable_and_from_the_palette() {
        let a = default_color("Travel");
        assert_eq!(a, default_color("  travel "));
        assert!(PALETTE.contains(&a.as_str()));
        let distinct: std::collections::HashSet<String> =
            ["Travel", "Meals", "Rent", "Sales", "Fees"]
                .iter()
                .map(|n| default_color(n))
                .collect();
        assert!(distinct.len() > 1);
    }

    #[test]
    fn colours_are_checked_and_normalised() {
        assert_eq!(parse_color("#a1b2c3").as_deref(), Some("#A1B2C3"));
        assert_eq!(parse_color("a1b2c3"), None);
        assert_eq!(parse_color("#a1b2c"), None);
        assert_eq!(parse_color("#GGGGGG"), None);
    }

    #[test]
    fn types_parse() {
        assert_eq!(CategoryType::parse("Expense"), Some(CategoryType::Expense));
        assert_eq!(CategoryType::parse("cost"), None);
    }
}
