// Stores made before this step had a full-text index on Memory.text, read by nothing;
// recall's text index lives in the view.
DROP INDEX memory_text IF EXISTS
