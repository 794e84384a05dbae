import type { FieldError } from '../shared/errors.js';
import type { NewCustomer } from './customers.js';

/** A CSV row as stored for its import: its row number (the header excluded) and its non-empty cells by column, or null when its cells did not match the header. */
export type StagedRow = [row: number, cells: Record<string, string> | null];

/** The interface's CSV columns, and where each goes in a POST /customers request. */
const ADDRESS_COLUMNS: Record<string, string> = { addressLine1: 'line1', addressLine2: 'line2', city: 'city', state: 'state', postalCode: 'postalCode', country: 'country' };
const BUSINESS_COLUMNS: Record<string, string> = {
  businessLegalName: 'legalName',
  businessRegistrationNumber: 'registrationNumber',
  businessTaxId: 'taxId',
  // This service's extension: POST /customers requires incorporatedOn for a business, and the interface's CSV has no column for it.
  businessIncorporatedOn: 'incorporatedOn',
};
const DIRECT_COLUMNS = ['umaAddress', 'platformCustomerId', 'customerType', 'fullName', 'birthDate', 'email'];
/** Columns the interface defines that POST /customers has no field for: accepted and not stored. */
const IGNORED_COLUMNS = ['platformAccountId', 'description'];

export const CSV_COLUMNS = [...DIRECT_COLUMNS, ...Object.keys(ADDRESS_COLUMNS), ...Object.keys(BUSINESS_COLUMNS), ...IGNORED_COLUMNS];
const KNOWN = new Set(CSV_COLUMNS);

/** The request field paths a row's failures are reported on, back as the CSV's column names. */
const COLUMN_OF_FIELD: Record<string, string> = {
  ...Object.fromEntries(Object.entries(ADDRESS_COLUMNS).map(([column, field]) => [`address.${field}`, column])),
  ...Object.fromEntries(Object.entries(BUSINESS_COLUMNS).map(([column, field]) => [`businessInfo.${field}`, column])),
};

export function columnOf(field: string): string {
  return COLUMN_OF_FIELD[field] ?? field;
}

/**
 * The POST /customers request a row stands for: empty cells are absent, address and business
 * columns become `address` and `businessInfo`, and a UMA address written without its leading `$`
 * (as in the interface's CSV example) gets it. Cells in columns the interface does not define are
 * failures of the row, named by column.
 */
export function customerOfRow(cells: Record<string, string>): { input: NewCustomer; unknown: FieldError[] } {
  const input: Record<string, unknown> = {};
  const address: Record<string, string> = {};
  const businessInfo: Record<string, string> = {};
  const unknown: FieldError[] = [];
  for (const [column, value] of Object.entries(cells)) {
    if (!KNOWN.has(column)) unknown.push({ field: column, message: 'is not a column of the customer CSV' });
    else if (column in ADDRESS_COLUMNS) address[ADDRESS_COLUMNS[column]!] = value;
    else if (column in BUSINESS_COLUMNS) businessInfo[BUSINESS_COLUMNS[column]!] = value;
    else if (DIRECT_COLUMNS.includes(column)) input[column] = value;
  }
  if (typeof input.umaAddress === 'string' && !input.umaAddress.startsWith('$')) input.umaAddress = `$${input.umaAddress}`;
  if (Object.keys(address).length > 0) input.address = address;
  if (Object.keys(businessInfo).length > 0 || input.customerType === 'BUSINESS') input.businessInfo = businessInfo;
  return { input: input as NewCustomer, unknown };
}
