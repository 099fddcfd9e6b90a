-- arXiv paper metadata: the source of truth Meilisearch is (re)built from. `id` has no version suffix.
create table papers (
  id text primary key,
  extracted_id text not null,
  title text not null,
  abstract text,
  authors text not null,
  authors_parsed jsonb not null,
  submitter text,
  comments text,
  journal_ref text,
  doi text,
  report_no text,
  categories text[] not null,
  primary_category text not null,
  license text,
  versions jsonb not null,
  submitted_at timestamptz not null,
  last_updated_at timestamptz not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
