import type { InternalAccount } from '../domain/accounts/account.js';
import { ID_TYPES, OWNER_ROLES } from '../domain/customers/beneficial-owners.js';
import { DOCUMENT_SIDES, DOCUMENT_TYPES } from '../domain/documents/documents.js';
import { customerRuleErrors, ENTITY_TYPES } from '../domain/customers/customers.js';
import { INDIVIDUAL_ID_TYPES } from '../domain/customers/customer-fields.js';
import { CreateOwnerBody } from '../schemas/beneficial-owners.js';
import { CreateCardBody } from '../schemas/cards.js';
import { CreateCustomerBody } from '../schemas/customers.js';
import { UploadDocumentBody } from '../schemas/documents.js';
import { FundInternalAccountBody } from '../schemas/internal-accounts.js';
import { bodyChecker, type FieldOption, type FormField, type FormSpec } from './forms.js';

/** The forms that create things, each checked by its API operation's schema: the console's share of the demo's tour. */

const address = (required: boolean): FormField[] => [
  { name: 'address.line1', label: 'Address line 1', required },
  { name: 'address.city', label: 'City' },
  { name: 'address.state', label: 'State' },
  { name: 'address.postalCode', label: 'Postal code', required },
  { name: 'address.country', label: 'Country', required, hint: 'Two letters, ISO 3166-1 (US, GB, ...)' },
];

export const NEW_INDIVIDUAL: FormSpec = {
  id: 'new-individual',
  title: 'New individual customer',
  button: 'Create individual customer',
  action: '/console/customers/new/INDIVIDUAL',
  hint: 'A person. In the sandbox the last three characters of the full name decide KYC at once: 001 PENDING, 002 REJECTED, 003 UNVERIFIED, anything else APPROVED.',
  fields: [
    { name: 'platformCustomerId', label: 'Platform customer ID', hint: 'Your own id for the customer; generated when left empty' },
    { name: 'fullName', label: 'Full name', required: true },
    { name: 'email', label: 'Email', kind: 'email' },
    { name: 'birthDate', label: 'Birth date', kind: 'date' },
    { name: 'nationality', label: 'Nationality', hint: 'Two letters, ISO 3166-1' },
    { name: 'idType', label: 'ID type', kind: 'select', options: INDIVIDUAL_ID_TYPES },
    { name: 'identifier', label: 'Identifier', hint: '###-##-####' },
    ...address(false),
  ],
};

export const NEW_BUSINESS: FormSpec = {
  id: 'new-business',
  title: 'New business customer',
  button: 'Create business customer',
  action: '/console/customers/new/BUSINESS',
  hint: 'A business starts UNVERIFIED: add its beneficial owners, then submit it for verification from its page.',
  fields: [
    { name: 'platformCustomerId', label: 'Platform customer ID', hint: 'Your own id for the customer; generated when left empty' },
    { name: 'businessInfo.legalName', label: 'Legal name', required: true },
    { name: 'businessInfo.incorporatedOn', label: 'Incorporated on', kind: 'date', required: true },
    { name: 'businessInfo.taxId', label: 'Tax ID', required: true },
    { name: 'businessInfo.entityType', label: 'Entity type', kind: 'select', options: ENTITY_TYPES },
    {
      name: 'businessInfo.registrationNumber',
      label: 'Registration number',
      hint: 'In the sandbox its last three characters decide verification: 002 REJECTED, 001 and 003 checked as in production (fields and documents), anything else APPROVED at once.',
    },
    { name: 'email', label: 'Email', kind: 'email' },
    ...address(false),
  ],
};

export const checkNewCustomer = bodyChecker(CreateCustomerBody, (body) => customerRuleErrors(body));

export const newOwnerForm = (customerId: string): FormSpec => ({
  id: 'new-owner',
  title: 'Add beneficial owner',
  button: 'Add beneficial owner',
  action: `/console/customers/${encodeURIComponent(customerId)}/beneficial-owners`,
  hint: "When the business is decided in the sandbox, each owner is decided by the last three characters of its last name: 001 PENDING, 002 REJECTED, anything else APPROVED.",
  fields: [
    { name: 'personalInfo.firstName', label: 'First name', required: true },
    { name: 'personalInfo.lastName', label: 'Last name', required: true },
    { name: 'personalInfo.birthDate', label: 'Birth date', kind: 'date', required: true },
    { name: 'personalInfo.nationality', label: 'Nationality', required: true, hint: 'Two letters, ISO 3166-1' },
    { name: 'personalInfo.email', label: 'Email', kind: 'email' },
    { name: 'personalInfo.phoneNumber', label: 'Phone number', kind: 'tel', hint: 'E.164, e.g. +14155550100' },
    ...address(true).map((f) => ({ ...f, name: `personalInfo.${f.name}` })),
    { name: 'personalInfo.idType', label: 'ID type', kind: 'select', options: ID_TYPES, required: true },
    { name: 'personalInfo.identifier', label: 'Identifier', required: true },
    { name: 'roles', label: 'Roles', kind: 'checkboxes', options: OWNER_ROLES, required: true },
    { name: 'ownershipPercentage', label: 'Ownership percentage', kind: 'integer', required: true, hint: 'A whole number from 0 to 100' },
  ],
});

export const checkNewOwner = bodyChecker(CreateOwnerBody);

export const verifyForm = (customerId: string): FormSpec => ({
  id: 'verify',
  title: 'Submit verification',
  button: 'Submit for verification',
  action: `/console/customers/${encodeURIComponent(customerId)}/verifications`,
  hint: 'As POST /verifications: checks the data and documents on file and answers the verification; RESOLVE_ERRORS lists what is missing.',
  fields: [],
});

const accountOptions = (accounts: InternalAccount[]) => accounts.map((a) => ({ value: a.id, label: `${a.id} (${a.type}, ${a.balance.currency.code})` }));

export const fundForm = (customerId: string, accounts: InternalAccount[]): FormSpec => ({
  id: 'fund',
  title: 'Fund account',
  button: 'Fund account',
  action: `/console/customers/${encodeURIComponent(customerId)}/fund`,
  hint: 'As POST /sandbox/internal-accounts/{id}/fund: credits the account (both balances) and sends INTERNAL_ACCOUNT.BALANCE_UPDATED.',
  fields: [
    { name: 'accountId', label: 'Account', kind: 'select', options: accountOptions(accounts), required: true },
    { name: 'amount', label: 'Amount', kind: 'integer', required: true, hint: 'In minor units (cents): 10000 is 100.00 USD' },
  ],
});

export const checkFund = bodyChecker(FundInternalAccountBody);

export const issueCardForm = (customerId: string, accounts: InternalAccount[]): FormSpec => ({
  id: 'issue-card',
  title: 'Issue card',
  button: 'Issue card',
  action: `/console/customers/${encodeURIComponent(customerId)}/cards`,
  hint: 'A VIRTUAL USD card for this customer (its KYC or KYB must be APPROVED), drawing on the account chosen.',
  fields: [
    { name: 'fundingSources', label: 'Funding account', kind: 'select', list: true, required: true, options: accountOptions(accounts.filter((a) => a.balance.currency.code === 'USD')) },
    {
      name: 'platformCardId',
      label: 'Platform card ID',
      hint: 'In the sandbox its last three characters decide issuance: 001 stays PROCESSING, 002 CLOSED, 005 ACTIVE after a delay, anything else ACTIVE at once; last4 comes from them.',
    },
    { name: 'maxSpendPerTransaction', label: 'Spend limit per transaction', kind: 'integer', hint: 'In minor units; empty for no limit' },
  ],
});

export const checkNewCard = bodyChecker(CreateCardBody);

export const uploadDocumentForm = (customerId: string, holders: FieldOption[]): FormSpec => ({
  id: 'upload-document',
  title: 'Upload document',
  button: 'Upload document',
  action: `/console/customers/${encodeURIComponent(customerId)}/documents`,
  hint: 'As POST /documents: a PDF, PNG or JPEG (checked by its content) for the customer or one of its owners, for a verification that asks for it.',
  multipart: true,
  fields: [
    { name: 'documentHolder', label: 'Document holder', kind: 'select', options: holders, required: true },
    { name: 'documentType', label: 'Document type', kind: 'select', options: DOCUMENT_TYPES, required: true },
    { name: 'side', label: 'Side', kind: 'select', options: DOCUMENT_SIDES },
    { name: 'country', label: 'Issuing country', required: true, hint: 'Two letters, ISO 3166-1' },
    { name: 'documentNumber', label: 'Document number' },
    { name: 'issuingAuthority', label: 'Issuing authority' },
    { name: 'file', label: 'File', kind: 'file', required: true },
  ],
});

export const checkUpload = bodyChecker(UploadDocumentBody);
