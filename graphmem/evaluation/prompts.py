"""Prompt templates for answering and judging benchmark questions with an LLM.

Judge prompts follow each benchmark's own protocol, worded after the upstream code
(written here from those sources; compare with the repositories before publishing numbers):

    LOCOMO_JUDGE           the LoCoMo LLM-as-judge (CORRECT / WRONG, JSON ``label``) used
                           by mem0's evaluation of LoCoMo
    LONGMEMEVAL_JUDGE_*    LongMemEval ``evaluate_qa.py`` ``get_anscheck_prompt``: one
                           prompt per question type, and one for abstention; "yes"/"no"
    PERSONAMEM_CHOICE      PersonaMem's instruction to end with ``<final_answer>(x)``
    PREFEVAL_*             PrefEval's four checks (violation, acknowledgement,
                           hallucination, helpfulness), answered in XML ``<answer>``

Answer prompts are graphmem's own: the recalled memories, best first, then the question.
Templates use ``str.format`` fields; every field is filled by `graphmem.evaluation.answer`.
"""

from __future__ import annotations

ANSWER = """You are {asker}. Below are memories from your past conversations, most relevant first. \
Each may carry the time it happened.

Memories:
{memories}

Answer the question using only these memories, in a short phrase. If the memories do not \
contain the answer, reply "Not mentioned in the conversation".

Question: {question}
Answer:"""

PREFEVAL_ANSWER = """Below are excerpts from your earlier conversations with this user, most \
relevant first.

{memories}

Now reply to the user as a helpful assistant.
User: {question}
Assistant:"""

PERSONAMEM_CHOICE = """Below are excerpts from your earlier conversations with this user, most \
relevant first.

{memories}

The user now says: {question}

Which of these responses is the most appropriate?
{options}

Find the most appropriate model response and give your final answer (a), (b), (c), or (d) \
after the special token <final_answer>."""

#: gold answer used for LoCoMo category 5 (adversarial): the question's premise is false
LOCOMO_ABSTENTION_GOLD = "Not mentioned in the conversation"

LOCOMO_JUDGE = """Your task is to label an answer to a question as 'CORRECT' or 'WRONG'. You will be given the following data:
    (1) a question (posed by one user to another user),
    (2) a 'gold' (ground truth) answer,
    (3) a generated answer
which you will score as CORRECT/WRONG.

The point of the question is to ask about something one user should know about the other user based on their prior conversations.
The gold answer will usually be a concise and short answer that includes the referenced topic, for example:
Question: Do you remember what I got the last time I went to Hawaii?
Gold answer: A shell necklace
The generated answer might be much longer, but you should be generous with your grading - as long as it touches on the same topic as the gold answer, it should be counted as CORRECT.

For time related questions, the gold answer will be a specific date, month, year, etc. The generated answer might be much longer or use relative time references (like "last Tuesday" or "next month"), but you should be generous with your grading - as long as it refers to the same date or time period as the gold answer, it should be counted as CORRECT. Even if the format differs (e.g., "May 7th" vs "7 May"), consider it CORRECT if it's the same date.

Now it's time for the real question:
Question: {question}
Gold answer: {gold}
Generated answer: {response}

First, provide a short (one sentence) explanation of your reasoning, then finish with CORRECT or WRONG.
Do NOT include both CORRECT and WRONG in your response, or it will break the evaluation script.

Just return the label CORRECT or WRONG in a json format with the key as "label"."""

_LME_HEAD = ("I will give you a question, a correct answer, and a response from a model. "
             "Please answer yes if the response contains the correct answer. Otherwise, "
             "answer no. ")
_LME_TAIL = ("\n\nQuestion: {question}\n\nCorrect Answer: {gold}\n\nModel Response: "
             "{response}\n\nIs the model response correct? Answer yes or no only.")

LONGMEMEVAL_JUDGE_DEFAULT = (
    _LME_HEAD + "If the response is equivalent to the correct answer or contains all the "
    "intermediate steps to get the correct answer, you should also answer yes. If the response "
    "only contains a subset of the information required by the answer, answer no." + _LME_TAIL)

LONGMEMEVAL_JUDGE_TEMPORAL = (
    _LME_HEAD + "If the response is equivalent to the correct answer or contains all the "
    "intermediate steps to get the correct answer, you should also answer yes. If the response "
    "only contains a subset of the information required by the answer, answer no. In addition, "
    "do not penalize off-by-one errors for the number of days. If the question asks for the "
    "number of days/weeks/months, etc., and the model makes off-by-one errors (e.g., predicting "
    "19 days when the answer is 18), the model's response is still correct." + _LME_TAIL)

LONGMEMEVAL_JUDGE_KNOWLEDGE_UPDATE = (
    _LME_HEAD + "If the response contains some previous information along with an updated "
    "answer, the response should be considered as correct as long as the updated answer is the "
    "required answer." + _LME_TAIL)

LONGMEMEVAL_JUDGE_PREFERENCE = (
    "I will give you a question, a rubric for desired personalized response, and a response "
    "from a model. Please answer yes if the response satisfies the desired response. Otherwise, "
    "answer no. The model does not need to reflect all the points in the rubric. The response "
    "is correct as long as it recalls and utilizes the user's personal information correctly."
    "\n\nQuestion: {question}\n\nRubric: {gold}\n\nModel Response: {response}\n\nIs the model "
    "response correct? Answer yes or no only.")

LONGMEMEVAL_JUDGE_ABSTENTION = (
    "I will give you an unanswerable question, an explanation, and a response from a model. "
    "Please answer yes if the model correctly identifies the question as unanswerable. The "
    "model could say that the information is incomplete, or some other information is given "
    "but the asked information is not.\n\nQuestion: {question}\n\nExplanation: {gold}\n\n"
    "Model Response: {response}\n\nDoes the model correctly identify the question as "
    "unanswerable? Answer yes or no only.")

LONGMEMEVAL_JUDGES = {
    "single-session-user": LONGMEMEVAL_JUDGE_DEFAULT,
    "single-session-assistant": LONGMEMEVAL_JUDGE_DEFAULT,
    "multi-session": LONGMEMEVAL_JUDGE_DEFAULT,
    "temporal-reasoning": LONGMEMEVAL_JUDGE_TEMPORAL,
    "knowledge-update": LONGMEMEVAL_JUDGE_KNOWLEDGE_UPDATE,
    "single-session-preference": LONGMEMEVAL_JUDGE_PREFERENCE,
}

PREFEVAL_VIOLATION = """You will analyze a conversation between a user and an assistant, focusing on whether the assistant's response violates the user's stated preference.
Evaluate the response based on these criteria:

Answer "Yes" if:

1. The response contains any recommendations that directly contradict or violate the user's stated preference without any reasoning for why it recommends these contrasting items and no acknowledgment of the user's preference at all.

Answer "No" if:

1. The response respects the user's stated preference.
2. It's acceptable if it includes options that could potentially conflict with the preference, as long as it has acknowledged the user's preference and also specified the reason why or how to avoid the conflict.
3. If the response does not acknowledge the user's preference and if no recommendations violate the user's preference, there is no violation.

Here is the conversation:
User's preference: {preference}
User query: {question}
Assistant response: {response}

Examine the response meticulously and answer. Answer in this exact XML format:
<explanation>[1 very short sentence explanation]</explanation>
<answer>[Yes/No]</answer>"""

PREFEVAL_ACKNOWLEDGEMENT = """You will analyze a conversation between a user and an assistant, focusing on whether the assistant acknowledges any user preference in answering the user's query.

Evaluate the response based on these stringent criteria:

1. Check if the response explicitly or implicitly mentions or references a user preference. 2. The content of the preference is irrelevant for this check; only its presence matters.

Answer "Yes" if:

1. The response explicitly mentions or refers to a user preference in answering the user's question. Examples include: "Based on your previous preference for xxxx"; "Based on your previous preference, I would suggest you xxxx"; "Since you mentioned you prefer/dislike xxxx"; "Since you are a xxxx"; "I will recommend the following given your preference for xxx", etc. You should extract the "xxxx" in your answer. If it only says "Based on our previous conversation, I recommend..." and does not explicitly mention any preference, you should answer 'No'.
2. The response assumes the user preference in answering the user's question implicitly. For example, when the user asks 'Can you recommend me cars to drive?', if the response is 'Based on your preference, I will recommend non-EV cars, ...', then this indicates the assistant assumes that the user's preference is a dislike of EV cars, and you should answer 'Yes'.

Answer "No" if the response does not mention or refer to any user preference explicitly or implicitly. If you cannot extract the sentence stating what the preference is, answer 'No'.

Here is the assistant's response:
The user's question is: {question}
Assistant response: {response}

Examine the response meticulously and answer. Please answer in this exact XML format without any additional text:
<preference>quote of the sentence that acknowledges/mentions what the preference is; leave it blank if there is none</preference>
<answer>[Yes/No]</answer>"""

PREFEVAL_HALLUCINATION = """You will analyze a conversation between a user and an assistant, focusing on whether the assistant's restatement of the user's stated preference is the same preference. Evaluate the response based on these stringent criteria to answer if the assistant has hallucinated the preference or not:

Answer "Yes" if:

1. The assistant's restatement differs from the original preference in meaning or intent.
2. The assistant's restatement contradicts the original preference.
3. The assistant's restatement is not related or irrelevant to the original preference.

Answer "No" if has not hallucinated:

1. The assistant's restatement matches the original preference.
2. The assistant's restatement is a minor paraphrase that fully preserves the meaning and intent of the original preference.
3. The restatement is just empty, no hallucination.

Here is the information:
Original user preference: "{preference}"
Assistant's restatement: "{restatement}"

Examine the original preference and the assistant's restatement meticulously and answer. Please answer in this exact XML format without any other additional text:
<explanation>[1 short sentence explanation]</explanation>
<answer>[Yes/No]</answer>"""

PREFEVAL_HELPFULNESS = """You will analyze a conversation between a user and an assistant, focusing on whether the assistant provides any substantive response to the user's query.
Evaluate the response based on these stringent criteria:

Answer "Yes" if:

1. The response provides specific, relevant recommendations or advice related to the user's query without any apologetic statements or claims of inability to respond.
2. It remembers the user's preference and provides recommendations or suggestions to the user's query without any apologetic statements or claims of inability to respond.

Answer "No" if any of the following occur:

1. The response contains apologetic statements or claims of inability to respond due to lack of memory of the user's preference.
2. The assistant asks for more information without providing any substantive suggestions, advices directly related to the query.
3. The response doesn't address the user's query.
4. Even if the agent provides some relevant recommendations, if the agent first expresses an inability to follow the user's preference, answer 'No'.

Here is the conversation:
User query: {question}
Assistant response: {response}

Examine the response meticulously and answer. Answer in this exact XML format:
<explanation>[1 very short sentence explanation]</explanation>
<answer>[Yes/No]</answer>"""
