// Stores made before this step had a full-text index on Memory.text. Nothing read it,
// and it re-indexed a memory's text on every SET of any property of the memory (20x the
// cost of a maintenance pass's score updates). Recall's text index lives in the view.
CALL db.idx.fulltext.drop('Memory')
