"""Which memories state a preference: likes, dislikes, habits of taste, constraints.

A question that asks for a recommendation ("what would you suggest for dinner?") rarely
shares words or much meaning with the statement that should shape the answer ("I have
been vegetarian since college"): among thousands of other memories, neither BM25 nor
the dense channel ranks it high. The profile channel ranks the asker's preference
statements alone, by similarity, so that the few of them compete with each other and
not with everything else that was said. The cue list is general English for stating a
taste, an aversion or a constraint.

A wider net (`states_constraint`) also reads the ways people hold themselves to a
rule: refusing, despising, fearing, lacking interest, restricting themselves ("I only /
never / do not" before a verb of using or choosing) and holding a stance. It catches
constraints the first list misses ("I only use wired peripherals", "I am not comfortable
with heights"), and everyday talk too ("I never go out on Mondays"): it feeds a channel
of its own (``constraints``), weighed per question kind by the fit, not the profile
channel.
"""

from __future__ import annotations

import hashlib
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


#: verbs of using or choosing, after which "only", "never" or a negation (straight or
#: curly apostrophe) is a rule one keeps
_CHOOSING = (r"(use|eat|drink|buy|wear|read|watch|listen|play|travel|fly|drive|ride|take|go|"
             r"shop|stay|cook|choose|book|order|own|touch|consume|want)s?")
_CONSTRAINT_CUES = [
    r"(refuse|refuses|refused|refusing|despise|despises|despised|abhor|abhors)",
    r"(no|little|zero)\s+interest\s+in",
    r"not\s+(interested|into|comfortable|keen|fond|a\s+fan)",
    r"(fear|fears|phobia)\s+of",
    r"(nervous|anxious|worried|concerned|concerns)\s+about",
    rf"(only|exclusively|never|rarely)\s+{_CHOOSING}",
    rf"(don['’]?t|do\s+not|won['’]?t|will\s+not|wouldn['’]?t|would\s+not)\s+(ever\s+)?{_CHOOSING}",
    r"(stance|stand)\s+against|against\s+\w+ing|oppose|opposes",
    r"(opposed|object|objection|objections)\s+to",
    r"(prioriti[sz]e|prioriti[sz]es|priority)",
    r"(sensitive|sensitivity)\s+to",
    r"(strictly|committed\s+to|stick\s+to|sticking\s+to)",
]
CONSTRAINT_CUE = re.compile(rf"\b({'|'.join(_CONSTRAINT_CUES)})\b", re.IGNORECASE)
#: a digest of the rules above: a view snapshot records it, so that one whose preferences
#: and constraints were read under other rules is not restored
RULES = hashlib.sha256("\n".join(
    (PREFERENCE_CUE.pattern, _LIKE_SUBJECT.pattern, CONSTRAINT_CUE.pattern)).encode()).hexdigest()[:16]


def states_preference(text: str) -> bool:
    """True when ``text`` reads as stating a taste, an aversion or a constraint."""
    for match in PREFERENCE_CUE.finditer(text):
        if match.group(0).lower().startswith("like"):
            before = text[max(0, match.start() - 40):match.start()]
            if not _LIKE_SUBJECT.search(before) or re.search(r"\b(What|How)\s+$", before):
                continue
        return True
    return False


def keeps_rule(text: str) -> bool:
    """True when ``text`` states a rule its speaker keeps: a refusal, a fear, a lack of
    interest, a restriction, a stance (whether or not it also states a preference)."""
    return CONSTRAINT_CUE.search(text) is not None


def states_constraint(text: str) -> bool:
    """True when ``text`` states a preference (`states_preference`) or a rule its speaker
    keeps (`keeps_rule`)."""
    return states_preference(text) or keeps_rule(text)
