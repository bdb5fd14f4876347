"""Which language a text is in, cheaply: its script, then (for the scripts many languages share)
its function words. Run on every chunk when it is saved (the keyword index stems each chunk in
its own language, storage/keyword/terms.py) and on search queries.

Why not a statistical detector: a chunk is saved thousands of times a second, and the function
words are needed anyway (they are the stop words dropped from keyword queries). Scripts that one
language owns (Thai, Hangul, Greek, Hebrew, kana) decide alone; Latin, Cyrillic, Arabic and
Devanagari text is told apart by the commonest words of each language. A text with too few of
them (a short chat line, a list of names) is left undetermined (""), and is then indexed as
before: English stemming for Latin letters.
"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Mapping
from functools import cache

UNKNOWN = ""

# (first code point, last code point, script), sorted; anything else is "Other"
_SCRIPT_RANGES = sorted([
    (0x0041, 0x005A, "Latin"), (0x0061, 0x007A, "Latin"), (0x00C0, 0x024F, "Latin"),
    (0x1E00, 0x1EFF, "Latin"),
    (0x0370, 0x03FF, "Greek"), (0x1F00, 0x1FFF, "Greek"),
    (0x0400, 0x052F, "Cyrillic"),
    (0x0530, 0x058F, "Armenian"),
    (0x0590, 0x05FF, "Hebrew"),
    (0x0600, 0x06FF, "Arabic"), (0x0750, 0x077F, "Arabic"), (0x08A0, 0x08FF, "Arabic"),
    (0xFB50, 0xFDFF, "Arabic"), (0xFE70, 0xFEFF, "Arabic"),
    (0x0900, 0x097F, "Devanagari"), (0x0980, 0x09FF, "Bengali"), (0x0A00, 0x0A7F, "Gurmukhi"),
    (0x0A80, 0x0AFF, "Gujarati"), (0x0B80, 0x0BFF, "Tamil"), (0x0C00, 0x0C7F, "Telugu"),
    (0x0C80, 0x0CFF, "Kannada"), (0x0D00, 0x0D7F, "Malayalam"), (0x0D80, 0x0DFF, "Sinhala"),
    (0x0E00, 0x0E7F, "Thai"), (0x0E80, 0x0EFF, "Lao"), (0x1000, 0x109F, "Myanmar"),
    (0x10A0, 0x10FF, "Georgian"), (0x1100, 0x11FF, "Hangul"), (0x1200, 0x137F, "Ethiopic"),
    (0x1780, 0x17FF, "Khmer"),
    (0x3005, 0x3007, "Han"), (0x3040, 0x30FF, "Kana"), (0x3130, 0x318F, "Hangul"),
    (0x31F0, 0x31FF, "Kana"), (0x3400, 0x4DBF, "Han"), (0x4E00, 0x9FFF, "Han"),
    (0xAC00, 0xD7AF, "Hangul"), (0xF900, 0xFAFF, "Han"), (0xFF66, 0xFF9F, "Kana"),
    (0x20000, 0x2FA1F, "Han"),
])
_STARTS = [start for start, _, _ in _SCRIPT_RANGES]

#: scripts written without spaces between words (or, for Hangul, with particles glued to them):
#: words cannot be told apart without a dictionary, so the keyword index keeps pairs of letters
UNSPACED_SCRIPTS = frozenset({"Han", "Kana", "Hangul", "Thai", "Lao", "Khmer", "Myanmar"})
UNSPACED_CLASS = "".join(f"\\U{start:08x}-\\U{end:08x}" for start, end, script in _SCRIPT_RANGES
                         if script in UNSPACED_SCRIPTS)

#: the language a script means by itself
_SCRIPT_LANGUAGE = {"Greek": "el", "Armenian": "hy", "Hebrew": "he", "Bengali": "bn", "Gurmukhi": "pa",
                    "Gujarati": "gu", "Tamil": "ta", "Telugu": "te", "Kannada": "kn", "Malayalam": "ml",
                    "Sinhala": "si", "Thai": "th", "Lao": "lo", "Myanmar": "my", "Georgian": "ka",
                    "Hangul": "ko", "Ethiopic": "am", "Khmer": "km", "Kana": "ja", "Han": "zh"}

#: English function words: dropped from keyword queries, and counted to recognise English
ENGLISH = """
a about above after again against all am an and any are aren as at be because been before being
below between both but by can cannot could couldn did didn do does doesn doing don down during each
few for from further had hadn has hasn have haven having he her here hers herself him himself his how
i if in into is isn it its itself just let me more most mustn my myself no nor not now of off on once
only or other ought our ours ourselves out over own same shan she should shouldn so some such than
that the their theirs them themselves then there these they this those through to too under until up
very was wasn we were weren what when where which while who whom why will with won would wouldn you
your yours yourself yourselves s t d ll m re ve y ever also did does tell say said know think get got
"""

#: the commonest function words of each language (pronouns, articles, prepositions, conjunctions,
#: auxiliaries): never a word that names something, since queries drop them
FUNCTION_WORDS: dict[str, frozenset[str]] = {language: frozenset(words.split()) for language, words in {
    "en": ENGLISH,
    "de": """der die das den dem des ein eine einen einem einer und oder aber nicht ich du er sie es wir
             ihr mit von zu zum zur auf für ist bin bist sind war waren hat habe haben hatte auch noch
             wie was wenn dass mir mich dir dich uns euch sich im am ins vom bei nach aus um schon doch
             ja nein kein keine mein meine dein deine sein seine wird werden kann können""",
    "fr": """le la les un une des du de et ou mais ne pas je tu il elle nous vous ils elles on est suis
             es sont était ai as avons avez ont avait avec pour dans sur au aux ce cette ces qui que
             quoi mon ma mes ton ta tes son sa ses leur leurs me te se lui y en très plus bien aussi
             oui non c j qu n d l m s t""",
    "es": """el la los las un una unos unas y o pero no yo tú tu él ella nosotros vosotros ellos ellas
             usted es soy eres son era fue estoy está están estaba he ha han había con para por en de
             del al que qué cómo como mi mis te se me le les lo nos su sus muy más también sí ya este
             esta esto ese esa eso pues""",
    "pt": """o a os as um uma uns umas e ou mas não nao eu tu você voce ele ela nós nos vocês eles elas
             é sou és são era foi estou está estão estava tenho tem têm tinha com para por em de do da
             dos das no na nas ao à que meu minha meus minhas teu tua seu sua te se me lhe muito mais
             também sim já isso esse essa isto este esta pra""",
    "it": """il lo la i gli le un uno una e o ma non io tu lui lei noi voi loro è sono sei era erano ho
             hai ha abbiamo hanno aveva con per in di da del dello della dei degli delle al alla nel
             nella che chi mi ti si ci vi mio mia miei mie tuo tua suo sua molto più anche sì già questo
             questa quello quella come perché""",
    "nl": """de het een en of maar niet ik jij je hij zij ze wij we jullie u is ben bent zijn was waren
             heb hebt heeft hebben had met voor van in op aan naar bij uit dat die dit deze wat wie
             mijn jouw zijn haar ons onze hun ook nog wel al geen er om te""",
    "id": """yang dan di ke dari ini itu dengan untuk pada adalah saya aku kamu anda dia kami kita mereka
             tidak tak bukan sudah telah akan sedang bisa dapat ada juga atau tapi tetapi karena jadi
             kalau jika apa siapa mana nya sangat lebih saja lagi belum""",
    "tr": """ve bir bu şu o da de ile için ama fakat çok daha ben sen biz siz onlar ne mi mı mu mü gibi
             kadar var yok değil diye ki olarak olan benim senin onun bizim sizin""",
    "pl": """i w na z do nie się że to jest są był była było jak ale lub czy ja ty on ona my wy oni mnie
             mi cię ci go mu jej nas was ich mój moja moje twój twoja jego po za od przez dla tak już
             jeszcze bardzo tylko też ten ta te co""",
    "cs": """a v na s z do ne se že to je jsou byl byla bylo jak ale nebo já ty on ona my vy oni mě mi
             tě ti mu jí nás vás jejich můj moje tvůj jeho po za od pro tak už ještě velmi jen také
             ten ta co jsem jsi jsme""",
    "sv": """och i att det som en ett på är av för med till den inte jag du han hon vi ni de har hade var
             om men så från eller min mitt mina din ditt sin sitt hans hennes vår er deras också""",
    "da": """og i at det som en et på er af for med til den ikke jeg du han hun vi de har havde var om
             men så fra eller min mit mine din dit sin sit hans hendes vores jeres deres også""",
    "no": """og i at det som en et på er av for med til den ikke jeg du han hun vi dere de har hadde var
             om men så fra eller min mitt mine din ditt sin sitt hans hennes vår deres også""",
    "fi": """ja on ei se että oli olen olet ovat mutta tai kun jos niin minä sinä hän me te he mitä mikä
             kuin myös vain jo nyt sitten tämä tuo minun sinun hänen""",
    "ro": """și si în in de la cu pe pentru nu că ca este sunt era am ai au eu tu el ea noi voi ei ele
             un o unui unei al ale meu mea tău ta lui ei mai foarte și sau dar""",
    "hu": """a az és hogy nem is egy van volt vagy de meg már csak mint én te ő mi ti ők ez azt ezt
             ami aki mert ha még nagyon""",
    "vi": """và của là có không tôi bạn một những các được cho với này đã để trong thì rất anh em chị
             mình nhé ạ gì cũng khi nào đó người""",
    "ca": """el la els les un una i o però no jo tu ell ella nosaltres vosaltres ells elles és sóc són
             era amb per en de del al que què com meu meva teu teva seu seva molt més també sí ja
             aquest aquesta això""",
    "ru": """и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по только ее
             мне было вот от меня еще нет о из ему теперь когда даже ну ли если уже или ни быть был
             него до вас нибудь опять уж вам ведь там потом себя ничего ей может они тут где есть
             надо ней для мы тебя их чем была сам чтоб без будто чего раз тоже себе под будет это
             этот эта эти мой моя мои твой твоя""",
    "uk": """і й в у не що він на я з як а то все вона так його але та ти до же ви за би по тільки її
             мені було ось від мене ще немає о із йому тепер коли навіть ну чи якщо вже або бути був
             нього вас там потім себе нічого може вони тут де є треба для ми тебе їх ніж була сам
             без також собі під буде це цей ця ці мій моя мої твій твоя""",
    "bg": """и в на не че той тя то аз ти ние вие те с от за да се по как но или ли е са беше бяха съм
             си сме сте ще във със към при този тази това тези мой моя мое мои твой""",
    "sr": """и у на не да је се за са од до као али или то ја ти он она ми ви они мене мени те теби
             смо сте су био била било ће овај ова ово мој моја""",
    "ar": """في من على إلى الى عن مع هذا هذه ذلك التي الذي التى هو هي أنا انا أنت انت نحن هم لا ما لم
             لن كان كانت يكون قد و أو او ثم لكن إن ان أن كل بعد قبل عند حتى""",
    "fa": """و در به از که این آن را با برای است هست بود من تو او ما شما آنها نه هم یک تا اما یا اگر
             چه چون باید می شد""",
    "ur": """اور میں کے کی کا کو سے ہے ہیں تھا تھی تھے یہ وہ نہیں بھی پر لیکن یا اگر کیا ہم آپ تم جو""",
    "hi": """है हैं के की का को में से और यह वह था थी थे पर भी नहीं तो मैं हम आप तुम क्या कि एक ही
             लिए साथ हो रहा रही""",
    "ne": """छ छन् हो र मा को का की ले लाई पनि यो त्यो म हामी तिमी तपाईं के कि एक थियो गर्न""",
    "mr": """आहे आहेत आणि या हे ते ती की मी तू आम्ही तुम्ही नाही होते होता पण तर एक मध्ये""",
}.items()}

#: the script each language of FUNCTION_WORDS is written in
LANGUAGE_SCRIPT = {**{language: "Latin" for language in
                      ("en", "de", "fr", "es", "pt", "it", "nl", "id", "tr", "pl", "cs", "sv", "da", "no",
                       "fi", "ro", "hu", "vi", "ca")},
                   **{language: "Cyrillic" for language in ("ru", "uk", "bg", "sr")},
                   **{language: "Arabic" for language in ("ar", "fa", "ur")},
                   **{language: "Devanagari" for language in ("hi", "ne", "mr")},
                   **{language: script for script, language in _SCRIPT_LANGUAGE.items()}}

NAMES = {"en": "English", "de": "German", "fr": "French", "es": "Spanish", "pt": "Portuguese",
         "it": "Italian", "nl": "Dutch", "id": "Indonesian", "tr": "Turkish", "pl": "Polish",
         "cs": "Czech", "sv": "Swedish", "da": "Danish", "no": "Norwegian", "fi": "Finnish",
         "ro": "Romanian", "hu": "Hungarian", "vi": "Vietnamese", "ca": "Catalan", "ru": "Russian",
         "uk": "Ukrainian", "bg": "Bulgarian", "sr": "Serbian", "ar": "Arabic", "fa": "Persian",
         "ur": "Urdu", "hi": "Hindi", "ne": "Nepali", "mr": "Marathi", "el": "Greek", "hy": "Armenian",
         "he": "Hebrew", "bn": "Bengali", "pa": "Punjabi", "gu": "Gujarati", "ta": "Tamil",
         "te": "Telugu", "kn": "Kannada", "ml": "Malayalam", "si": "Sinhala", "th": "Thai", "lo": "Lao",
         "my": "Burmese", "ka": "Georgian", "ko": "Korean", "am": "Amharic", "km": "Khmer",
         "ja": "Japanese", "zh": "Chinese"}


@cache
def _word_votes() -> dict[str, list[tuple[str, float]]]:
    """Each function word, with the weight it gives each language that uses it (shared words count
    less): made on the first language told, which `grep`, `read` and `stats` never ask."""
    languages: dict[str, list[str]] = {}
    for language, words in FUNCTION_WORDS.items():
        for word in words:
            languages.setdefault(word, []).append(language)
    return {word: [(language, 1.0 / len(users)) for language in users] for word, users in languages.items()}


#: a word: letters and digits with the combining marks many scripts write vowels and accents
#: with (Python's \w leaves them out, which would cut "हमने" in two)
WORD = re.compile("[\\w\u0300-\u036F\u0483-\u0489\u0591-\u05C7\u0610-\u061A\u064B-\u065F\u0670"
                  "\u06D6-\u06ED\u0900-\u0963\u0966-\u0DFF\u0E00-\u0EFF\u1000-\u109F\u1780-\u17FF]+")
_KANA = re.compile("[\u3040-\u30FF\u31F0-\u31FF\uFF66-\uFF9F]")
_UKRAINIAN_LETTERS = re.compile("[іїєґ]")
MIN_VOTES = 2.0  # function-word evidence needed to name a language of a shared script
SAMPLE_CHARS = 400  # a chunk's language is told from its start: 60-80 words, most of the cost


def script_of(char: str) -> str:
    code = ord(char)
    i = bisect.bisect_right(_STARTS, code) - 1
    if i >= 0 and code <= _SCRIPT_RANGES[i][1]:
        return _SCRIPT_RANGES[i][2]
    return "Other"


def token_script(token: str) -> str:
    """The script of a word (of its first letter; ASCII at once)."""
    return "Latin" if token.isascii() and not token.isdigit() else script_of(token[0])


def _votes(words: list[str]) -> Counter[str]:
    """Each language's votes from the function words among `words`."""
    votes: Counter[str] = Counter()
    for found in filter(None, map(_word_votes().get, words)):
        for language, weight in found:
            votes[language] += weight
    return votes


def _script(sample: str, words: list[str]) -> str | None:
    """The script most of a sample's letters are in; None when it has none."""
    if sample.isascii():  # most text: Latin letters only, no script to count
        return "Latin"
    letters: Counter[str] = Counter()
    for word in words:
        if not word.isdigit():
            letters[token_script(word)] += len(word)
    letters.pop("Other", None)
    return letters.most_common(1)[0][0] if letters else None


def detect_language(text: str) -> str:
    """An ISO 639-1 code, or UNKNOWN when the text says too little."""
    sample = text[:SAMPLE_CHARS].lower()
    words = WORD.findall(sample)
    votes = _votes(words)
    script = _script(sample, words)
    if script is None:
        return UNKNOWN
    if script in ("Han", "Kana"):
        # Japanese writes kanji among its kana; Chinese has no kana
        return "ja" if len(_KANA.findall(sample)) * 10 >= sum(map(len, WORD.findall(sample))) else "zh"
    if script in _SCRIPT_LANGUAGE:
        return _SCRIPT_LANGUAGE[script]
    ranked = [(count, language) for language, count in votes.items() if LANGUAGE_SCRIPT[language] == script]
    if not ranked:
        return UNKNOWN
    count, language = max(ranked)
    if count < MIN_VOTES:
        return UNKNOWN
    if script == "Cyrillic" and language in ("ru", "uk"):
        return "uk" if _UKRAINIAN_LETTERS.search(sample) else "ru"
    return language


# A text too short for MIN_VOTES ("Ihr Paket liegt am Schalter", a one-line chat
# message) is read in its context instead (storage/language_context.py): its own few function
# words where they point one way, else its document's language where that is clear.
LEAN_VOTES = 1.0  # the least evidence that counts at all: one word only that language has
LEAN_WORDS = 2  # ... from at least two of its words (one shared word says little: "mana", "a")
LEAN_MARGIN = 2.0  # ... and at least twice the votes of the next language of the script
DOCUMENT_SHARE = 0.8  # a document's language: that of at least this share of its told chunks
DOCUMENT_CHUNKS = 3  # ... and of at least this many (one told mail in a mailbox is not its language)


def lean_language(text: str) -> str:
    """The language a text's few function words point to, under detect_language's MIN_VOTES: the
    best of its script with at least LEAN_VOTES from LEAN_WORDS words and LEAN_MARGIN times the
    next; UNKNOWN when the evidence is thinner or split. For a text detect_language leaves
    undetermined (a text it can tell gets that language)."""
    told = detect_language(text)
    if told != UNKNOWN:
        return told
    sample = text[:SAMPLE_CHARS].lower()
    words = WORD.findall(sample)
    script = _script(sample, words)
    votes = _votes(words)
    hits = Counter(language for word in words for language, _ in _word_votes().get(word, ()))
    ranked = sorted(((count, language) for language, count in votes.items()
                     if LANGUAGE_SCRIPT[language] == script), reverse=True)
    if not ranked:
        return UNKNOWN
    count, language = ranked[0]
    runner_up = ranked[1][0] if len(ranked) > 1 else 0.0
    if count < LEAN_VOTES or hits[language] < LEAN_WORDS or count < LEAN_MARGIN * runner_up:
        return UNKNOWN
    return language


def document_language(told: Mapping[str, int]) -> str:
    """The language of a document from how many of its chunks were told as each language
    (undetermined ones left out): the one of at least DOCUMENT_SHARE of them, and of at least
    DOCUMENT_CHUNKS; UNKNOWN for a document of mixed or too few told chunks."""
    told = {language: n for language, n in told.items() if language != UNKNOWN and n > 0}
    if not told:
        return UNKNOWN
    language, count = max(told.items(), key=lambda item: (item[1], item[0]))
    if count < DOCUMENT_CHUNKS or count < DOCUMENT_SHARE * sum(told.values()):
        return UNKNOWN
    return language


def context_language(text: str, document: str) -> str:
    """The language taken for a chunk detect_language cannot tell: its own lean evidence first
    (a German reminder in a mostly English mailbox), else `document`, its document's language
    (document_language: a one-line message in a chat written in Portuguese); UNKNOWN when
    neither says."""
    return lean_language(text) or document
