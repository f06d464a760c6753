"""Platform limits that bound what the bank may hold and what adapters may send.

One place for the numbers, each with its reason (see shared PLATFORM_FACTS and questions/README.md).
"""

MESSAGE_MAX = 4096  # Telegram message text; also a Discord embed description
STEM_MAX = 2500  # leaves room for the options in one message
OPTION_MAX = 200  # listed under the stem; an answerCallbackQuery pop-up holds 200 characters
EXPLANATION_MAX = 1500  # shown with the stem when the answer is revealed
OPTIONS_MIN, OPTIONS_MAX = 2, 6
ID_MAX = 40  # ids travel in button data: Telegram callback_data is 64 bytes
BUTTON_LABEL_MAX = 80  # Discord button label; Telegram buttons are cut off well before that
SHORT_OPTION_MAX = 36  # longer options are listed in the message and the buttons carry letters
CALLBACK_DATA_MAX_BYTES = 64  # Telegram callback_data
CUSTOM_ID_MAX = 100  # Discord custom_id
POPUP_TEXT_MAX = 200  # Telegram answerCallbackQuery text
POLL_QUESTION_MAX = 300  # Telegram quiz poll: question, unformatted
POLL_OPTION_MAX = 100  # ... each option, unformatted
POLL_EXPLANATION_MAX = 200  # ... explanation, at most 2 line feeds (the full one comes at the reveal)

# A mock interview, the same on every platform (validated by the core, offered by every adapter).
INTERVIEW_COUNT_MIN, INTERVIEW_COUNT_MAX = 1, 30
TIME_LIMIT_MIN_S, TIME_LIMIT_MAX_S = 10, 600  # seconds per question of a timed interview

# A group's own questions (/deck add): a file a member uploads is a stranger's input, bounded before it is read.
DECK_MAX_BYTES = 1_000_000  # checked before the download, and again on the bytes
DECK_MAX_QUESTIONS = 500
DECKS_PER_CHAT = 20
DECK_NAME_MAX = 32  # a deck's name: 1-32 of a-z, 0-9, _ and -, lower-cased (it is typed after `deck:`)
DECK_PROBLEMS_SHOWN = 10  # problems listed in the reply before "and K more"
DECK_KEPT_AFTER_LEFT_S = 30 * 86400  # a chat that removed the bot keeps its decks this long
DECK_LIVE_AT_MOST_S = 8 * 86400  # how recent an open deck question must be to keep its removed deck (reveals: <= 48 h)
DECK_REMOVAL_GRACE_S = 120  # a removed deck's row outlives the removal by this much at least (a post being made from it)
