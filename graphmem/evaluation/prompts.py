'''Prompt templates for answering and judging benchmark questions with an LLM.

A benchmark's judge prompt is part of its protocol: numbers are comparable with published
ones only when the judge is told the same thing, must answer with the same labels, and its
reply is read the same way. Each judge template below is therefore copied verbatim
(whitespace included) from the upstream file named beside it; the reading of the reply
lives in `graphmem.evaluation.answer` and follows the same files.

    LONGMEMEVAL_JUDGE_*   xiaowu0162/LongMemEval src/evaluation/evaluate_qa.py
                          ``get_anscheck_prompt`` (commit f466efe0): one prompt per question
                          type, one for abstention (``_abs``) questions; positional ``{}``
                          fields: question, answer, model response
    LOCOMO_JUDGE          mem0ai/mem0 evaluation/metrics/llm_judge.py ``ACCURACY_PROMPT``
                          (commit 2352a441). LoCoMo's own repository (snap-research/locomo,
                          task_eval/evaluation.py, commit 92286325) has no LLM judge: it
                          scores token F1, and category 5 by the reply containing "no
                          information available" or "not mentioned"
                          (`LOCOMO_ABSTENTION_PHRASES`). The CORRECT/WRONG judge is mem0's,
                          and mem0 leaves category 5 out of it.
    PERSONAMEM_INSTRUCTION  bowen-upenn/PersonaMem inference.py ``query_llm`` (commit
                          2f465738; same in inference_standalone_openai.py, 041d82ac):
                          user message = question, instruction, options joined by blank lines
    PREFEVAL_*            PrefEval's four error-type checks, as in the fork
                          zhucaroline18/OwnPrefEval (commit 5f3d3cd9; the index holds no
                          copy of amazon-science/PrefEval itself):
                          error_type/check_hallucination.txt, error_type/check_helpful.txt
                          and the system prompt of generation_task/
                          llm_based_evaluation_errortypes.py were checked. The files
                          check_violation.txt and check_acknowledge.txt were NOT found;
                          PREFEVAL_VIOLATION and PREFEVAL_ACKNOWLEDGEMENT are left as
                          written from memory (unverified; third-party copies show the
                          acknowledgement's ``<preference>`` line as ``[quote ...]``).

Answer prompts (``ANSWER``, ``PREFEVAL_ANSWER``, ``PERSONAMEM_MEMORIES``) are graphmem's
own: the recalled memories, best first, stand where upstream puts the full conversation.
Templates use ``str.format`` fields; every field is filled by `graphmem.evaluation.answer`.
'''

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

# -- LoCoMo -------------------------------------------------------------------------------

#: snap-research/locomo task_eval/evaluation.py: a category 5 (adversarial) reply is right
#: when its lower-cased text contains one of these
LOCOMO_ABSTENTION_PHRASES = ("no information available", "not mentioned")

#: mem0ai/mem0 evaluation/metrics/llm_judge.py ACCURACY_PROMPT, commit 2352a441 (an older
#: version, 67230435, differs only in "it’s" for "it's"); the quotes around CORRECT, WRONG
#: and gold are U+2019 upstream
LOCOMO_JUDGE = (
    "\n"
    "Your task is to label an answer to a question as \u2019CORRECT\u2019 or \u2019WRONG\u2019. "
    "You will be given the following data:\n"
    "    (1) a question (posed by one user to another user), \n"
    "    (2) a \u2019gold\u2019 (ground truth) answer, \n"
    "    (3) a generated answer\n"
    "which you will score as CORRECT/WRONG.\n"
    "\n"
    "The point of the question is to ask about something one user should know about the "
    "other user based on their prior conversations.\n"
    "The gold answer will usually be a concise and short answer that includes the referenced "
    "topic, for example:\n"
    "Question: Do you remember what I got the last time I went to Hawaii?\n"
    "Gold answer: A shell necklace\n"
    "The generated answer might be much longer, but you should be generous with your grading "
    "- as long as it touches on the same topic as the gold answer, it should be counted as "
    "CORRECT. \n"
    "\n"
    "For time related questions, the gold answer will be a specific date, month, year, etc. "
    "The generated answer might be much longer or use relative time references (like \"last "
    "Tuesday\" or \"next month\"), but you should be generous with your grading - as long as "
    "it refers to the same date or time period as the gold answer, it should be counted as "
    "CORRECT. Even if the format differs (e.g., \"May 7th\" vs \"7 May\"), consider it CORRECT "
    "if it's the same date.\n"
    "\n"
    "Now it's time for the real question:\n"
    "Question: {question}\n"
    "Gold answer: {gold_answer}\n"
    "Generated answer: {generated_answer}\n"
    "\n"
    "First, provide a short (one sentence) explanation of your reasoning, then finish with "
    "CORRECT or WRONG. \n"
    "Do NOT include both CORRECT and WRONG in your response, or it will break the evaluation "
    "script.\n"
    "\n"
    "Just return the label CORRECT or WRONG in a json format with the key as \"label\".\n")

# -- LongMemEval ----------------------------------------------------------------------------
# xiaowu0162/LongMemEval src/evaluation/evaluate_qa.py get_anscheck_prompt, commit f466efe0
# (b11ff723 has the same prompts). Note the space before "\n\nQuestion" in the first two.

_LME_FIELDS = ("\n\nQuestion: {}\n\nCorrect Answer: {}\n\nModel Response: {}\n\n"
               "Is the model response correct? Answer yes or no only.")
_LME_HEAD = ("I will give you a question, a correct answer, and a response from a model. "
             "Please answer yes if the response contains the correct answer. Otherwise, "
             "answer no. ")
_LME_STEPS = ("If the response is equivalent to the correct answer or contains all the "
              "intermediate steps to get the correct answer, you should also answer yes. If the "
              "response only contains a subset of the information required by the answer, "
              "answer no. ")

LONGMEMEVAL_JUDGE_DEFAULT = _LME_HEAD + _LME_STEPS + _LME_FIELDS

LONGMEMEVAL_JUDGE_TEMPORAL = (
    _LME_HEAD + _LME_STEPS + "In addition, do not penalize off-by-one errors for the number of "
    "days. If the question asks for the number of days/weeks/months, etc., and the model makes "
    "off-by-one errors (e.g., predicting 19 days when the answer is 18), the model's response "
    "is still correct. " + _LME_FIELDS)

LONGMEMEVAL_JUDGE_KNOWLEDGE_UPDATE = (
    _LME_HEAD + "If the response contains some previous information along with an updated "
    "answer, the response should be considered as correct as long as the updated answer is the "
    "required answer." + _LME_FIELDS)

LONGMEMEVAL_JUDGE_PREFERENCE = (
    "I will give you a question, a rubric for desired personalized response, and a response "
    "from a model. Please answer yes if the response satisfies the desired response. Otherwise, "
    "answer no. The model does not need to reflect all the points in the rubric. The response "
    "is correct as long as it recalls and utilizes the user's personal information correctly."
    "\n\nQuestion: {}\n\nRubric: {}\n\nModel Response: {}\n\nIs the model response correct? "
    "Answer yes or no only.")

LONGMEMEVAL_JUDGE_ABSTENTION = (
    "I will give you an unanswerable question, an explanation, and a response from a model. "
    "Please answer yes if the model correctly identifies the question as unanswerable. The "
    "model could say that the information is incomplete, or some other information is given "
    "but the asked information is not.\n\nQuestion: {}\n\nExplanation: {}\n\nModel Response: "
    "{}\n\nDoes the model correctly identify the question as unanswerable? Answer yes or no "
    "only.")

#: question_type -> template; upstream raises NotImplementedError for any other type
LONGMEMEVAL_JUDGES = {
    "single-session-user": LONGMEMEVAL_JUDGE_DEFAULT,
    "single-session-assistant": LONGMEMEVAL_JUDGE_DEFAULT,
    "multi-session": LONGMEMEVAL_JUDGE_DEFAULT,
    "temporal-reasoning": LONGMEMEVAL_JUDGE_TEMPORAL,
    "knowledge-update": LONGMEMEVAL_JUDGE_KNOWLEDGE_UPDATE,
    "single-session-preference": LONGMEMEVAL_JUDGE_PREFERENCE,
}

# -- PersonaMem -----------------------------------------------------------------------------

#: sent as a system message in place of upstream's conversation context
PERSONAMEM_MEMORIES = """Below are excerpts from your earlier conversations with this user, \
most relevant first.

{memories}"""

#: bowen-upenn/PersonaMem inference.py Evaluation.query_llm default ``instructions``
PERSONAMEM_INSTRUCTION = ("Find the most appropriate model response and give your final "
                          "answer (a), (b), (c), or (d) after the special token <final_answer>.")

#: the user message: question + '\n\n' + instructions + '\n\n' + all_options, as upstream
PERSONAMEM_QUESTION = "{question}\n\n" + PERSONAMEM_INSTRUCTION + "\n\n{options}"

# -- PrefEval -------------------------------------------------------------------------------

#: generation_task/llm_based_evaluation_errortypes.py ``system_prompt`` (typo as upstream)
PREFEVAL_JUDGE_SYSTEM = ("You are a helpful assistant in evaluating an AI assistant's reponse. "
                         "You should be fair and strict and follow the user's instruction")

#: NOT verified: error_type/check_violation.txt was not found; written from memory
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

#: NOT verified: error_type/check_acknowledge.txt was not found; written from memory
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

#: zhucaroline18/OwnPrefEval error_type/check_hallucination.txt, commit 5f3d3cd9 (upstream
#: fields {preference}, {assistant_restatement}; note the trailing spaces and final newline)
PREFEVAL_HALLUCINATION = (
    "You will analyze a conversation between a user and an assistant, focusing on whether the "
    "assistant's restatement of the user's stated preference is the same preference. Evaluate "
    "the response based on these stringent criteria to answer if the assistant has "
    "hallucinated the preference or not:\n"
    "\n"
    "Answer \"Yes\" if:\n"
    "\n"
    "1. The assistant's restatement differs from the original preference in meaning or "
    "intent.\n"
    "2. The assistant's restatement contradicts the original preference.\n"
    "3. The assistant's restatement is not related or irrelevant to the original preference.\n"
    "\n"
    "Answer \"No\" if has not hallucinated:\n"
    "\n"
    "1. The assistant's restatement matches the original preference.\n"
    "2. The assistant's restatement is a minor paraphrase that fully preserves the meaning and "
    "intent of the original preference.\n"
    "3. The restatement is just empty, no hallucination.\n"
    "\n"
    "Here is the information: \n"
    "Original user preference: \"{preference}\" \n"
    "Assistant's restatement: \"{restatement}\" \n"
    "Examine the original preference and the assistant's restatement meticulously and answer. "
    "Please answer in this exact XML format without any other additional text: \n"
    "<explanation>[1 short sentence explanation]</explanation>\n"
    "<answer>[Yes/No]</answer>\n")

#: zhucaroline18/OwnPrefEval error_type/check_helpful.txt, commit 5f3d3cd9 (upstream fields
#: {question}, {end_generation}; no final newline)
PREFEVAL_HELPFULNESS = (
    "You will analyze a conversation between a user and an assistant, focusing on whether the "
    "assistant provides any substantive response to the user's query.\n"
    "Evaluate the response based on these stringent criteria:\n"
    "\n"
    "Answer \"Yes\" if any of the following:\n"
    "\n"
    "1. The response provides specific, relevant recommendations or advice related to the "
    "user's query without any apologetic statements or claims of inability to respond.\n"
    "2. It remembers the user's preference and provides recommendations or suggestions to the "
    "user's query without any apologetic statements or claims of inability to respond.\n"
    "\n"
    "Answer \"No\" if any of the following:\n"
    "\n"
    "1. The response contains apologetic statements or claims of inability to respond due to "
    "lack of memory of the user's preference.\n"
    "2. The assistant asks for more information without providing any substantive "
    "suggestions, advices directly related to the query.\n"
    "3. The response doesn't address the user's query.\n"
    "4. Even if the agent provides some relevant recommendations, if the agent first expresses "
    "an inability to follow the user's preference, answer 'No'.\n"
    "\n"
    "Examples of unhelpful responses: (Answer: No):\n"
    "\n"
    "\"Unfortunately, I don't actually have enough context about your specific preferences for "
    "xxx\"\n"
    "\"Unfortunately, we haven't had a previous discussion about your preferences for xxx. "
    "Could you let me know your preference for xxx?\"\n"
    "\"I apologize, but I don't have access to your personal information or previous "
    "conversations.\"\n"
    "\"I'm sorry, but I can't provide a specific answer without more details.\"\n"
    "\n"
    "Here is the conversation:\n"
    "User query: {question}\n"
    "Assistant response: {response}\n"
    "\n"
    "Examine the response meticulously and answer. Answer in this exact XML format:\n"
    "<explanation>[1 very short sentence explanation]</explanation>\n"
    "<answer>[Yes/No]</answer>")
