/** A console form sent with its page's token (migration 032): where its first submission led, once it has. */
export interface FormSubmissionRow {
  /** SHA-256 (hex) of the platform, the page's token, the form's path and the values sent (see FormSubmissions). */
  id: string;
  platform_id: string;
  /** Where the first submission redirected to; null while it runs. */
  location: string | null;
  created_at: number;
}

export interface FormSubmissionTables {
  form_submissions: FormSubmissionRow;
}
