"""Which memories state a preference: likes, dislikes, habits of taste, constraints.

A question that asks for a recommendation ("what would you suggest for dinner?") rarely
shares words or much meaning with the statement that should shape the answer ("I have
been vegetarian since college"): among thousands of other memories, neither BM25 nor
the dense channel ranks it high. The profile channel ranks the asker's preference
statements alone, by similarity, so that the few of them compete with each other and
not with everything else that was said. The cue list is general English for stating a
taste, an aversion or a constraint.
"""

from __future__ import annotations

import re

_CUES = [
    r"(prefer|prefers|preferred|preferring|preference|preferences)",
    r"(like|likes|liked|love|loves|loved|enjoy|enjoys|enjoyed|adore|adores)",
    r"(dislike|dislikes|disliked|hate|hates|hated|detest|detests|loathe|loathes)",
    r"(can'?t|cannot|could\s?n'?t|won'?t)\s+(stand|bear|eat|drink|tolerate|handle)",
    r"(favou?rite|favou?rites|fond|fan|keen|passionate|obsessed)",
    r"(aversion|averse|allergic|allergy|allergies|intolerant|intolerance)",
    r"(avoid|avoids|avoided|avoiding|rather\s+than)",
    r"(vegetarian|vegan|pescatarian|kosher|halal|gluten[- ]free|dairy[- ]free|sober)",
    r"(uncomfortable|afraid|scared|terrified)",
]
PREFERENCE_CUE = re.compile(rf"\b({'|'.join(_CUES)})\b", re.IGNORECASE)
#: "like" is a verb of taste only after its subject ("I like", "Mel likes", "really
#: liked"); elsewhere ("looks like", "what is it like", "like a ...") it is a preposition
_LIKE_SUBJECT = re.compile(
    r"(\b(i|you|he|she|we|they|user|really|also|still|always|do|does|did|don'?t|doesn'?t|"
    r"didn'?t|not|would|'d)|\b[A-Z][\w'’-]*)\s+$")


def states_preference(text: str) -> bool:
    """True when ``text`` reads as stating a taste, an aversion or a constraint."""
    for match in PREFERENCE_CUE.finditer(text):
        if match.group(0).lower().startswith("like"):
            before = text[max(0, match.start() - 40):match.start()]
            if not _LIKE_SUBJECT.search(before) or re.search(r"\b(What|How)\s+$", before):
                continue
        return True
    return False
