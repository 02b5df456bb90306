//! Contacts (spec 4.7): reads, and queued create / update / delete (DECISIONS 4).
//!
//! Writes are validated here first (a refused one never enters the queue), then decided
//! again from the current state when the job runs: the reference must still be free and
//! a deleted contact must still be unreferenced, which the store re-checks as the
//! effect's precondition.

use crate::error::Resource;
use serde_json::json;

use crate::contacts::{
    Contact, ContactChanges, ContactFields, ContactFilter, ContactType, apply_changes,
    check_country, check_currency, check_email, check_metadata, check_name, check_text,
    check_website,
};
use crate::error::{DomainError, DomainResult};
use crate::ids::{IdKind, new_id, parse_id};
use crate::jobs::{Job, JobCommand};
use crate::ports::{Effect, Page, PageRequest, Store, Tenant, Written};
use crate::views;

use super::accounts::{not_found, tenant_reads};
use super::runner::Decision;
use super::{Access, Ledger, WriteOptions};

/// A new contact as a client sent it.
#[derive(Debug, Clone, Default)]
pub struct NewContactInput {
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
    pub currency_id: Option<String>,
    pub metadata: Option<serde_json::Value>,
}

fn duplicate_reference(reference: &str) -> DomainError {
    DomainError::duplicate_value(
        "reference",
        format!("a contact with reference '{reference}' already exists"),
    )
}

impl<S: Store> Ledger<S> {
    /// Refuses a reference another live contact of the tenant has.
    async fn check_reference_free(
        &self,
        tenant: &Tenant,
        reference: Option<&str>,
        own_id: Option<&str>,
    ) -> DomainResult<()> {
        let Some(reference) = reference else {
            return Ok(());
        };
        match self.store.contact_with_reference(tenant, reference).await? {
            Some(holder) if Some(holder.as_str()) != own_id => Err(duplicate_reference(reference)),
            _ => Ok(()),
        }
    }

    /// Validates a new contact and queues its creation.
    ///
    /// # Errors
    /// Validation errors on the fields, `duplicate_value` on `reference`,
    /// `insufficient_credits`.
    pub(crate) async fn create_contact(
        &self,
        access: &Access,
        input: NewContactInput,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let contact_type = ContactType::parse(&input.contact_type).ok_or_else(|| {
            DomainError::invalid_field(
                "contact_type",
                "must be one of customer, vendor, employee, other",
            )
        })?;
        let currency_id = match input
            .currency_id
            .as_deref()
            .map(str::trim)
            .filter(|c| !c.is_empty())
        {
            None => access.organization.base_currency.clone(),
            Some(code) => check_currency(code)?,
        };
        let fields = ContactFields {
            name: check_name(&input.name)?,
            email: check_email(input.email.as_deref())?,
            phone: check_text("phone", input.phone.as_deref())?,
            website: check_website(input.website.as_deref())?,
            tax_number: check_text("tax_number", input.tax_number.as_deref())?,
            reference: check_text("reference", input.reference.as_deref())?,
            address: check_text("address", input.address.as_deref())?,
            city: check_text("city", input.city.as_deref())?,
            state: check_text("state", input.state.as_deref())?,
            zip_code: check_text("zip_code", input.zip_code.as_deref())?,
            country: check_country(input.country.as_deref())?,
            currency_id,
            enabled: true,
            metadata: check_metadata(input.metadata.unwrap_or_else(|| json!({})))?,
        };
        self.check_reference_free(&access.tenant, fields.reference.as_deref(), None)
            .await?;
        let command = JobCommand::CreateContact {
            contact_id: new_id(IdKind::Contact),
            contact_type,
            fields,
        };
        self.enqueue(access, command, options).await
    }

    tenant_reads! {
        /// Reads a contact of the tenant.
        ///
        /// # Errors
        /// `resource_not_found`.
        pub fn get_contact(id) -> Contact: Contact, "contact", get_contact;
    }

    /// The live contacts of the tenant among `ids`, in one read (ids that are not
    /// contact ids or name nothing are skipped).
    ///
    /// # Errors
    /// Storage failures only.
    pub async fn contacts_by_ids(
        &self,
        access: &Access,
        ids: &[String],
    ) -> DomainResult<Vec<Contact>> {
        let parsed: Vec<String> = ids
            .iter()
            .filter_map(|id| parse_id(IdKind::Contact, id))
            .collect();
        Ok(self.store.contacts_by_ids(&access.tenant, &parsed).await?)
    }

    /// Lists contacts, oldest first.
    ///
    /// # Errors
    /// Storage failures only.
    pub async fn list_contacts(
        &self,
        access: &Access,
        filter: &ContactFilter,
        page: PageRequest,
    ) -> DomainResult<Page<Contact>> {
        Ok(self
            .store
            .list_contacts(&access.tenant, filter, page)
            .await?)
    }

    /// Validates changes to a contact and queues them.
    ///
    /// # Errors
    /// `resource_not_found`, field validation errors, `duplicate_value` on `reference`.
    pub(crate) async fn update_contact(
        &self,
        access: &Access,
        id: &str,
        changes: ContactChanges,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_contact(access, id).await?;
        let next = apply_changes(&current.fields, &changes)?;
        if next.reference != current.fields.reference {
            self.check_reference_free(&access.tenant, next.reference.as_deref(), Some(&current.id))
                .await?;
        }
        let command = JobCommand::UpdateContact {
            contact_id: current.id,
            changes,
        };
        self.enqueue(access, command, options).await
    }

    /// Queues the soft delete of a contact no live transaction references.
    ///
    /// # Errors
    /// `resource_not_found`, `resource_in_use`.
    pub(crate) async fn delete_contact(
        &self,
        access: &Access,
        id: &str,
        options: WriteOptions,
    ) -> DomainResult<Written<Job>> {
        let current = self.get_contact(access, id).await?;
        self.check_not_in_use(access, Resource::Contact, &current.id)
            .await?;
        self.enqueue(
            access,
            JobCommand::DeleteContact {
                contact_id: current.id,
            },
            options,
        )
        .await
    }

    /// Checks that `id` names a live, enabled contact of the tenant (for a transaction's
    /// `contact_id`) and returns its normalised id.
    ///
    /// # Errors
    /// `invalid_field` on `contact_id`.
    pub(super) async fn check_contact_ref(
        &self,
        access: &Access,
        id: &str,
    ) -> DomainResult<String> {
        let parsed =
            crate::ids::parse_reference(IdKind::Contact, Resource::Contact, "contact_id", id)?;
        match self.store.get_contact(&access.tenant, &parsed).await? {
            Some(c) if c.fields.enabled => Ok(c.id),
            Some(c) => Err(DomainError::reference_not_usable(
                "contact_id",
                Resource::Contact,
                &c.id,
                format!("contact '{}' is disabled", c.id),
            )),
            None => Err(DomainError::reference_not_found(
                "contact_id",
                Resource::Contact,
                parsed,
            )),
        }
    }

    /// Decides a contact job from the current state.
    pub(super) async fn contact_decision(
        &self,
        job: &Job,
        tenant: &Tenant,
    ) -> DomainResult<Decision> {
        let now = self.now();
        let current = |id: String| async move {
            self.store
                .get_contact(tenant, &id)
                .await?
                .ok_or_else(|| not_found("contact", &id))
        };
        match &job.command {
            JobCommand::CreateContact {
                contact_id,
                contact_type,
                fields,
            } => {
                self.check_reference_free(tenant, fields.reference.as_deref(), None)
                    .await?;
                let contact = Contact {
                    id: contact_id.clone(),
                    organization_id: job.organization_id.clone(),
                    livemode: job.livemode,
                    contact_type: *contact_type,
                    fields: fields.clone(),
                    created_by: job.api_key_id.clone(),
                    created_at: now,
                    updated_at: now,
                };
                let result = views::contact(&contact);
                let events = vec![self.event(
                    job,
                    "contact.created",
                    "contact",
                    &contact.id,
                    None,
                    Some(result.clone()),
                )];
                Ok(Decision {
                    effect: Effect::InsertContact(contact),
                    events,
                    result,
                })
            }
            JobCommand::UpdateContact {
                contact_id,
                changes,
            } => {
                let before = current(contact_id.clone()).await?;
                let fields = apply_changes(&before.fields, changes)?;
                if fields.reference != before.fields.reference {
                    self.check_reference_free(
                        tenant,
                        fields.reference.as_deref(),
                        Some(&before.id),
                    )
                    .await?;
                }
                let contact = Contact {
                    fields,
                    updated_at: now,
                    ..before.clone()
                };
                let result = views::contact(&contact);
                let events = vec![self.event(
                    job,
                    "contact.updated",
                    "contact",
                    &contact.id,
                    Some(views::contact(&before)),
                    Some(result.clone()),
                )];
                Ok(Decision {
                    effect: Effect::ReplaceContact(contact),
                    events,
                    result,
                })
            }
            JobCommand::DeleteContact { contact_id } => {
                let before = current(contact_id.clone()).await?;
                let deletion = self.soft_deletion(job, "contact", &before.id, &before.fields.name);
                let result = views::deleted("contact", &before.id, deletion.recoverable_until);
                let events = vec![self.event(
                    job,
                    "contact.deleted",
                    "contact",
                    &before.id,
                    Some(views::contact(&before)),
                    None,
                )];
                Ok(Decision {
                    effect: Effect::DeleteContact {
                        contact_id: before.id.clone(),
                        deletion,
                    },
                    events,
                    result,
                })
            }
            other => Err(DomainError::Internal(format!(
                "{} is not a contact job",
                other.name()
            ))),
        }
    }
}
