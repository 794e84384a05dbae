/** A console form sent with its page's token (migration 032): where its first submission led, once it has. */
export interface FormSubmissionRow {
  platform_id: string;
  token: string;
  /** The form's action path. */
  path: string;
  /** SHA-256 (hex) of the values it was sent with: another choice from the same page is another submission. */
  body_sha256: string;
  /** Where the first submission redirected to; null while it runs. */
  location: string | null;
  created_at: number;
}

export interface FormSubmissionTables {
  form_submissions: FormSubmissionRow;
}
