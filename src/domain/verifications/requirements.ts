import type { OwnerRole, PersonalInfo } from '../customers/beneficial-owners.js';
import type { DocumentType } from './document-types.js';

export const VERIFICATION_ERROR_TYPES = [
  'MISSING_FIELD',
  'INVALID_FIELD',
  'MISSING_LEGAL_PRESENCE_DOCUMENT',
  'MISSING_CONTROL_STRUCTURE_DOCUMENT',
  'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT',
  'MISSING_PROOF_OF_ADDRESS_DOCUMENT',
  'MISSING_IDENTITY_DOCUMENT',
  'INVALID_DOCUMENT',
  'EXPIRED_DOCUMENT',
  'POOR_QUALITY_DOCUMENT',
  'SUSPECTED_FRAUD_DOCUMENT',
  'WRONG_DOCUMENT_TYPE',
  'INCOMPLETE_DOCUMENT',
  'UNREADABLE_DOCUMENT',
  'DOCUMENT_VERIFICATION_FAILED',
  'APPLICANT_SANCTIONED',
  'APPLICANT_FRAUD',
  'APPLICANT_CRIMINAL_RECORD',
  'APPLICANT_REJECTED',
  'MISSING_BENEFICIAL_OWNER',
  'MISSING_CONTROL_PERSON',
  'MISSING_GOOD_STANDING_DOCUMENT',
] as const;
export type VerificationErrorType = (typeof VERIFICATION_ERROR_TYPES)[number];

/** One thing that keeps a verification from going on (the interface's VerificationError). */
export interface VerificationError {
  resourceId: string;
  type: VerificationErrorType;
  field?: string;
  acceptedDocumentTypes?: DocumentType[];
  reason: string;
}

/** Each document category a verification asks for, with the document types that satisfy it (the interface's table). */
const DOCUMENT_CATEGORIES = {
  MISSING_IDENTITY_DOCUMENT: ['PASSPORT', 'DRIVERS_LICENSE', 'NATIONAL_ID'],
  MISSING_LEGAL_PRESENCE_DOCUMENT: ['CERTIFICATE_OF_INCORPORATION', 'ARTICLES_OF_INCORPORATION', 'ARTICLES_OF_ASSOCIATION', 'STATE_REGISTRY_EXCERPT'],
  MISSING_CONTROL_STRUCTURE_DOCUMENT: ['DIRECTOR_REGISTRY', 'TRUST_AGREEMENT', 'STATE_COMPANY_REGISTRY', 'PARTNERSHIP_CONTROL_AGREEMENT'],
  MISSING_OWNERSHIP_STRUCTURE_DOCUMENT: ['SHAREHOLDER_REGISTER', 'TRUST_AGREEMENT', 'PARTNERSHIP_AGREEMENT'],
  MISSING_PROOF_OF_ADDRESS_DOCUMENT: ['PROOF_OF_ADDRESS', 'UTILITY_BILL', 'RENT_OR_LEASE_AGREEMENT', 'ELECTRICITY_BILL', 'BANK_STATEMENT', 'TAX_RETURN'],
} as const satisfies Partial<Record<VerificationErrorType, readonly DocumentType[]>>;
type DocumentCategory = keyof typeof DOCUMENT_CATEGORIES;

/** A non-U.S. beneficial owner: a passport, and one more government-issued identity document. */
const OWNER_PASSPORT: readonly DocumentType[] = ['PASSPORT'];
const OWNER_SECOND_ID: readonly DocumentType[] = ['DRIVERS_LICENSE', 'NATIONAL_ID'];

/** Roles that make an owner the business's control person (someone who controls, manages or directs it). */
const CONTROL_ROLES: readonly OwnerRole[] = ['CONTROL_PERSON', 'DIRECTOR', 'COMPANY_OFFICER', 'GENERAL_PARTNER', 'TRUSTEE'];

type Data = Record<string, unknown>;
const present = (v: unknown) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);
const missingField = (resourceId: string, field: string, reason: string): VerificationError => ({ resourceId, type: 'MISSING_FIELD', field, reason });

function missingDocument(resourceId: string, onFile: ReadonlySet<string>, type: VerificationErrorType, accepted: readonly DocumentType[], reason: string): VerificationError[] {
  return accepted.some((t) => onFile.has(t)) ? [] : [{ resourceId, type, acceptedDocumentTypes: [...accepted], reason }];
}

const categoryMissing = (resourceId: string, onFile: ReadonlySet<string>, category: DocumentCategory, reason: string) =>
  missingDocument(resourceId, onFile, category, DOCUMENT_CATEGORIES[category], reason);

/** What an individual needs before review: full name (given and family), birth date, nationality, idType + identifier, address, an identity document. */
export function individualErrors(customerId: string, data: Data, onFile: ReadonlySet<string>): VerificationError[] {
  const errors: VerificationError[] = [];
  if (!present(data.fullName)) errors.push(missingField(customerId, 'fullName', 'Full name is required'));
  else if (String(data.fullName).trim().split(/\s+/).length < 2) {
    errors.push({ resourceId: customerId, type: 'INVALID_FIELD', field: 'fullName', reason: 'Full name must contain a given name and a family name' });
  }
  if (!present(data.birthDate)) errors.push(missingField(customerId, 'birthDate', 'Date of birth is required'));
  if (!present(data.nationality)) errors.push(missingField(customerId, 'nationality', 'Nationality is required'));
  if (!present(data.idType)) errors.push(missingField(customerId, 'idType', 'Identification type is required'));
  if (!present(data.identifier)) errors.push(missingField(customerId, 'identifier', 'Identifier is required'));
  if (!present((data.address as Data | undefined)?.line1)) errors.push(missingField(customerId, 'address.line1', 'Address line 1 is required'));
  errors.push(...categoryMissing(customerId, onFile, 'MISSING_IDENTITY_DOCUMENT', 'Identity document is required'));
  return errors;
}

/** An owner as a verification sees it. */
export interface OwnerFacts {
  id: string;
  roles: readonly string[];
  personalInfo: Partial<PersonalInfo>;
}

/** What one beneficial owner needs: name, birth date, address, identification number; a non-U.S. owner a passport and one more ID. */
function ownerErrors(owner: OwnerFacts, onFile: ReadonlySet<string>): VerificationError[] {
  const p = owner.personalInfo;
  const errors: VerificationError[] = [];
  const need = (field: string, ok: boolean, reason: string) => ok || errors.push(missingField(owner.id, `personalInfo.${field}`, reason));
  need('firstName', present(p.firstName), 'First name is required for beneficial owners');
  need('lastName', present(p.lastName), 'Last name is required for beneficial owners');
  need('birthDate', present(p.birthDate), 'Date of birth is required for beneficial owners');
  need('address.line1', present(p.address?.line1), 'Address line 1 is required for beneficial owners');
  need('identifier', present(p.identifier), 'Identification number is required for beneficial owners');
  if (p.nationality !== 'US') {
    errors.push(...missingDocument(owner.id, onFile, 'MISSING_IDENTITY_DOCUMENT', OWNER_PASSPORT, 'A passport is required for non-U.S. beneficial owners'));
    errors.push(...missingDocument(owner.id, onFile, 'MISSING_IDENTITY_DOCUMENT', OWNER_SECOND_ID, 'A second government-issued ID is required for non-U.S. beneficial owners'));
  }
  return errors;
}

/**
 * What a business needs before review (the KYB data requirements): legal name, physical address,
 * countries of operation, identification number; formation, control, ownership and proof-of-address
 * documents; at least one beneficial owner, a control person among them, and each owner's own.
 */
export function businessErrors(customerId: string, data: Data, owners: readonly OwnerFacts[], docs: ReadonlyMap<string, ReadonlySet<string>>): VerificationError[] {
  const info = (data.businessInfo ?? {}) as Data;
  const onFile = docs.get(customerId) ?? new Set<string>();
  const errors: VerificationError[] = [];
  if (!present(info.legalName)) errors.push(missingField(customerId, 'customer.businessInfo.legalName', 'Business legal name is required'));
  if (!present((data.address as Data | undefined)?.line1)) errors.push(missingField(customerId, 'customer.address.line1', 'Business address line 1 is required'));
  if (!present(info.countriesOfOperation)) errors.push(missingField(customerId, 'customer.businessInfo.countriesOfOperation', 'Countries of operation are required'));
  if (!present(info.taxId)) errors.push(missingField(customerId, 'customer.businessInfo.taxId', 'Tax identification number is required'));
  errors.push(
    ...categoryMissing(customerId, onFile, 'MISSING_LEGAL_PRESENCE_DOCUMENT', 'Company formation document is required'),
    ...categoryMissing(customerId, onFile, 'MISSING_CONTROL_STRUCTURE_DOCUMENT', 'Control structure document is required'),
    ...categoryMissing(customerId, onFile, 'MISSING_OWNERSHIP_STRUCTURE_DOCUMENT', 'Ownership structure document is required'),
    ...categoryMissing(customerId, onFile, 'MISSING_PROOF_OF_ADDRESS_DOCUMENT', 'Proof of address document is required'),
  );
  if (owners.length === 0) errors.push({ resourceId: customerId, type: 'MISSING_BENEFICIAL_OWNER', reason: 'At least one beneficial owner is required' });
  if (!owners.some((o) => o.roles.some((r) => CONTROL_ROLES.includes(r as OwnerRole)))) {
    errors.push({ resourceId: customerId, type: 'MISSING_CONTROL_PERSON', reason: 'A control person (an owner with a control role) is required' });
  }
  for (const owner of owners) errors.push(...ownerErrors(owner, docs.get(owner.id) ?? new Set<string>()));
  return errors;
}
