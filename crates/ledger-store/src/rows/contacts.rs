//! Row struct of the contacts table.

use diesel::prelude::*;
use ledger_domain::StoreError;
use ledger_domain::contacts::{Contact, ContactFields, ContactType};
use time::PrimitiveDateTime;

use super::{from_db, json_text, parse_json, parsed, to_db};
use crate::schema::*;

#[derive(Debug, Clone, Queryable, Selectable, Insertable)]
#[diesel(table_name = contacts, check_for_backend(diesel::pg::Pg, diesel::sqlite::Sqlite))]
#[diesel(treat_none_as_default_value = false)]
pub(crate) struct ContactRow {
    pub organization_id: String,
    pub livemode: bool,
    pub id: String,
    pub contact_type: String,
    pub name: String,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub website: Option<String>,
    pub tax_number: Option<String>,
    pub reference: Option<String>,
    pub address: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub zip_code: Option<String>,
    pub country: Option<String>,
    pub currency_id: String,
    pub enabled: bool,
    pub metadata: String,
    pub created_by: String,
    pub created_at: PrimitiveDateTime,
    pub updated_at: PrimitiveDateTime,
    pub deleted_at: Option<PrimitiveDateTime>,
    pub deleted_by: Option<String>,
    pub recoverable_until: Option<PrimitiveDateTime>,
}

impl From<&Contact> for ContactRow {
    fn from(c: &Contact) -> Self {
        let f = &c.fields;
        Self {
            organization_id: c.organization_id.clone(),
            livemode: c.livemode,
            id: c.id.clone(),
            contact_type: c.contact_type.as_str().to_owned(),
            name: f.name.clone(),
            email: f.email.clone(),
            phone: f.phone.clone(),
            website: f.website.clone(),
            tax_number: f.tax_number.clone(),
            reference: f.reference.clone(),
            address: f.address.clone(),
            city: f.city.clone(),
            state: f.state.clone(),
            zip_code: f.zip_code.clone(),
            country: f.country.clone(),
            currency_id: f.currency_id.clone(),
            enabled: f.enabled,
            metadata: json_text(&f.metadata),
            created_by: c.created_by.clone(),
            created_at: to_db(c.created_at),
            updated_at: to_db(c.updated_at),
            deleted_at: None,
            deleted_by: None,
            recoverable_until: None,
        }
    }
}

impl TryFrom<ContactRow> for Contact {
    type Error = StoreError;
    fn try_from(r: ContactRow) -> Result<Self, StoreError> {
        Ok(Contact {
            contact_type: parsed(ContactType::parse, "contact type", &r.contact_type)?,
            fields: ContactFields {
                metadata: parse_json(&r.metadata)?,
                name: r.name,
                email: r.email,
                phone: r.phone,
                website: r.website,
                tax_number: r.tax_number,
                reference: r.reference,
                address: r.address,
                city: r.city,
                state: r.state,
                zip_code: r.zip_code,
                country: r.country,
                currency_id: r.currency_id,
                enabled: r.enabled,
            },
            id: r.id,
            organization_id: r.organization_id,
            livemode: r.livemode,
            created_by: r.created_by,
            created_at: from_db(r.created_at),
            updated_at: from_db(r.updated_at),
        })
    }
}
