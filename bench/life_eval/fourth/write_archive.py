"""A fourth invented life for bench/life_eval.py (`--archive fourth`), written by someone who had read
neither the search and ranking code nor the README's account of it, nor the other archives'
questions: Piotr Zieliński, a Polish piano technician of 58 to 60 who has lived in Cork, Ireland,
since 2005, from March 2022 to October 2024, in Polish and (Irish) English.

His phone is an Android set to Polish: the family group (renamed twice), his mother ("Mama") and his
son Marek are Polish WhatsApp exports; his partner Siobhán exported their chat from her iPhone, where
he is saved as "Piotr"; his daughter Kasia writes on Instagram in English and Polish; his friend
Fergal on Signal; his Polish friend Tadek on Telegram; the choir is a Messenger group; the piano
technicians' server is a DiscordChatExporter file; his mail is a Gmail Takeout mbox and two saved
.eml files; his calendar a Google Calendar .ics; his notes are markdown, a year a file; a quote he
wrote is a .docx, an invoice he got a .pdf; a mentoring call a Zoom transcript. The facts the
questions ask about are stated among small talk drawn from a seeded generator: the same bytes every
run (no hash(), no clock).

Every word here is invented for this benchmark (no real person's messages or data); it is part of
Biographer and shares the project's licence.

    python bench/life_eval/fourth/write_archive.py   # writes bench/life_eval/fourth/archive/
"""

from __future__ import annotations

import random
import shutil
import sys
import zlib
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # exports.py, the formats the lives are written in
import exports  # noqa: E402

HERE = Path(__file__).resolve().parent
ARCHIVE = HERE / "archive"
OWNER = "Piotr Zieliński"
OWNER_ALIASES = ("Piotr Zieliński,Piotr Zielinski,Piotr,Piotr Z,piotr_tunes,"
                 "piotr.zielinski.cork@gmail.com")
MAIL_ADDRESS = "piotr.zielinski.cork@gmail.com"
START = datetime(2022, 3, 1, 8, 0)
END = datetime(2024, 10, 31, 22, 0)
CORK, GDANSK = ZoneInfo("Europe/Dublin"), ZoneInfo("Europe/Warsaw")
P = "<owner>"  # the owner, as each source names him (OWNER_IN)

# how each source writes the owner's name
OWNER_IN = {"family": OWNER, "mama": OWNER, "marek": OWNER, "siobhan": "Piotr", "kasia": OWNER,
            "fergal": "Me", "tadek": OWNER, "choir": OWNER, "discord": "Piotr Z"}

# (source, local time in Cork, sender, text): the facts
FACTS: list[tuple[str, str, str, str]] = [
    # --- the family group (WhatsApp Android, Polish)
    ("family", "2022-03-06 18:20", "Jędrek", "Mama wczoraj znowu zapomniała wyłączyć gaz. Musimy na spokojnie pogadać, co dalej"),
    ("family", "2022-03-06 18:35", P, "Zadzwonię do niej jutro. Może czujnik gazu na początek?"),
    ("family", "2022-04-17 09:10", "Mama", "Wesołych Świąt kochani! Piotruś, szkoda, że cię nie ma, upiekłam twój ulubiony sernik"),
    ("family", "2022-07-23 10:05", "Jędrek", "Piotrek dotarł cały i zdrowy, siedzimy na działce i naprawiamy płot 🍺"),
    ("family", "2022-11-08 14:30", "Jędrek", "Operacja zaćmy u mamy poszła dobrze, lewe oko. Prawe w styczniu"),
    ("family", "2022-12-27 20:15", "Kasia", "Rory mi się oświadczył w Wigilię!! 💍 Tato, wiedziałeś?"),
    ("family", "2022-12-27 20:22", P, "Wiedziałem 😉 Pytał mnie o zgodę w październiku, w pubie w Galway"),
    ("family", "2022-12-27 20:31", "Mama", "Gratulacje kochanie! A kiedy ślub?"),
    ("family", "2023-01-24 12:10", "Jędrek", "Prawe oko też zrobione, mama mówi, że teraz widzi każdy pyłek w domu 😄"),
    ("family", "2023-02-10 09:40", P, "Bursztyn odszedł dziś rano. Miał 15 lat. Weterynarz przyszedł do domu, zasnął mi na kolanach"),
    ("family", "2023-05-14 09:05", "Marek", "Zosia jest z nami! Urodziła się dziś o 6:40, 3350 g, 54 cm. Ola i mała czują się dobrze"),
    ("family", "2023-09-02 17:00", "Jędrek", "Od dziś mama mieszka u nas w Oliwie, pokój na dole już gotowy"),
    ("family", "2023-10-15 19:30", P, "Przeprowadzka zrobiona! Od wczoraj mieszkam w Kinsale, zdjęcia domku wieczorem"),
    ("family", "2024-01-14 13:00", "Kasia", "Mamy datę! Ślub 14 września 2024 w Katedrze Oliwskiej, wesele w Dworze Oliwskim"),
    ("family", "2024-05-05 11:00", P, "Poznajcie Dolly! Emerytowana greyhoundka, 4 lata, wzięliśmy ją z adopcji w Youghal"),
    ("family", "2024-07-12 08:00", P, "Mamo, wszystkiego najlepszego z okazji 85. urodzin! 🎂 Dzwonię wieczorem"),
    ("family", "2024-09-15 12:00", "Mama", "Piękny ślub. Rory tańczył poloneza jak rodowity Polak 😄"),
    ("family", "2024-09-22 18:00", "Jędrek", "Zmieniłem nazwę grupy, bo teraz jesteśmy jedną wielką rodziną"),
    # --- Mama (WhatsApp Android, Polish)
    ("mama", "2022-03-20 19:00", "Mama", "Piotruś, pamiętaj o tabletkach na ciśnienie. Jędrek założył mi ten czujnik gazu, piszczy jak kot"),
    ("mama", "2022-06-12 18:00", "Mama", "Kiedy przylatujesz, synku?"),
    ("mama", "2022-06-12 18:04", P, "Przylatuję 22 lipca wieczorem, Jędrek mnie odbierze z lotniska"),
    ("mama", "2022-11-10 11:00", "Mama", "Już widzę lepiej na lewe oko, kolory są takie jasne!"),
    ("mama", "2023-02-11 10:00", "Mama", "Synku, tak mi przykro z powodu Bursztyna. Był dobrym psem, pamiętam go jako szczeniaka"),
    ("mama", "2023-06-04 20:00", "Mama", "Kasia pokazała mi zdjęcie tej Siobhán. Ładna kobieta. Kiedy ją poznam?"),
    ("mama", "2023-06-04 20:06", P, "W lipcu, mamo. Przylatujemy razem 15 lipca"),
    ("mama", "2023-09-03 10:30", "Mama", "Jestem już u Jędrka. Mam swój pokój z oknem na ogród, a Burek pilnuje mnie w nocy"),
    ("mama", "2024-02-18 17:00", "Mama", "Czy Siobhán lubi pierogi? Nauczę ją lepić ruskie, jak przyjedziecie na wesele"),
    ("mama", "2024-07-12 20:30", "Mama", "Dziękuję synku. 85 lat, kto by pomyślał. Jędrek zrobił grilla dla całej ulicy"),
    # --- Marek (WhatsApp Android, Polish)
    ("marek", "2022-04-26 21:00", "Marek", "Tato, dostałem awans! Od maja jestem team leadem w Nokii"),
    ("marek", "2022-09-18 19:00", "Marek", "Kupiliśmy z Olą mieszkanie na Nadodrzu we Wrocławiu! Dwa pokoje, trzecie piętro, blisko Odry"),
    ("marek", "2023-01-20 22:00", "Marek", "Tato, Ola jest w ciąży! Termin na połowę maja. Jeszcze nikomu nie mówimy"),
    ("marek", "2023-05-14 21:00", "Marek", "Zadzwonię jutro, Ola śpi, mała też. Jestem wykończony i szczęśliwy"),
    ("marek", "2023-11-28 20:00", "Marek", "Odchodzę z Nokii. Od stycznia pracuję zdalnie dla Nordlys, to duńska firma od oprogramowania dla farm wiatrowych"),
    ("marek", "2024-02-23 18:00", P, "Kupiłem elektryka! Renault Kangoo, w końcu pożegnałem starego Transita"),
    ("marek", "2024-02-23 18:09", "Marek", "No nareszcie tato 😄 ile ma zasięgu?"),
    ("marek", "2024-02-23 18:12", P, "Około 280 km, do Cork i z powrotem spokojnie"),
    ("marek", "2024-08-03 12:00", "Marek", "Zosia mówi już „dziadzio”! Nagram ci filmik"),
    # --- Siobhán (WhatsApp iOS, from her iPhone: English, Ireland)
    ("siobhan", "2022-10-05 21:10", "Siobhán Murphy", "Lovely to chat after rehearsal last night. Coffee on Saturday? The café in the Crawford at 11?"),
    ("siobhan", "2022-10-05 21:30", P, "I'd like that very much. I'll be the tall one with the grey beard"),
    ("siobhan", "2022-10-08 15:00", P, "Thank you for this morning. I haven't laughed like that in years"),
    ("siobhan", "2022-11-02 21:40", "Siobhán Murphy", "Parent-teacher meetings all week at Scoil Naomh Eoin, I'm wrecked. Third class parents are the worst"),
    ("siobhan", "2022-11-20 20:15", "Siobhán Murphy", "You have to read Small Things Like These by Claire Keegan. It's short, you'll finish it in one evening"),
    ("siobhan", "2022-12-15 20:00", "Siobhán Murphy", "Cian is home from Toronto for Christmas, would you like to meet him on Stephen's Day?"),
    ("siobhan", "2023-02-10 10:30", "Siobhán Murphy", "I'm so sorry about Bursztyn. I'll come over after school with dinner, don't argue"),
    ("siobhan", "2023-03-31 17:30", "Siobhán Murphy", "Proud of you, love. Last day at Crowley's! Zieliński Piano Care starts Monday"),
    ("siobhan", "2023-06-21 13:00", P, "The bank said yes!! AIB approved the mortgage, the Summercove cottage is ours. Well, mine, but you know what I mean"),
    ("siobhan", "2023-07-19 22:00", "Siobhán Murphy", "Your mam is a legend. I'm never going to make pierogi like hers"),
    ("siobhan", "2024-02-25 20:00", "Siobhán Murphy", "I've told the landlord. I'm out of the Ballincollig house by the end of March, so Kinsale it is"),
    ("siobhan", "2024-05-04 16:00", "Siobhán Murphy", "She's so skinny and so gentle. Dolly, Dolly, Dolly. I'm in love"),
    ("siobhan", "2024-08-10 09:00", "Siobhán Murphy", "I still can't stop looking at the ring. Yes, a thousand times yes"),
    ("siobhan", "2024-10-17 16:00", "Siobhán Murphy", "I got it!! I start as principal of Scoil Mhuire in January"),
    # --- Kasia (Instagram DMs, English and Polish)
    ("kasia", "2022-03-15 19:00", "Kasia Zielińska", "Tato, I got the job! Small animal vet at Galway Bay Vets, start in May 🐶"),
    ("kasia", "2023-01-29 20:00", P, "I need a name for the business. Zieliński Pianos sounds like a shop"),
    ("kasia", "2023-01-29 20:07", "Kasia Zielińska", "You should call it Zieliński Piano Care, simple, and people trust a surname"),
    ("kasia", "2023-02-10 12:00", "Kasia Zielińska", "Tato, he had a long life. 15 is a great age for a big dog. Kocham cię"),
    ("kasia", "2023-10-16 21:00", "Kasia Zielińska", "The cottage is gorgeous!! Is that the harbour from the kitchen window?"),
    ("kasia", "2024-04-02 19:00", "Kasia Zielińska", "If you want a dog again, get a retired greyhound. Try Youghal Greyhound Rescue, they do home checks and everything"),
    ("kasia", "2024-04-02 19:03", "Kasia Zielińska", "And buy her a proper fleece coat, they feel the cold"),
    ("kasia", "2024-06-10 18:30", "Kasia Zielińska", "Rory's parents land in Gdańsk on the 11th of September, can you and Siobhán meet them at the airport?"),
    ("kasia", "2024-09-16 10:00", "Kasia Zielińska", "Dziękuję tato za przemowę. Everyone was crying, even Rory's brothers"),
    # --- Fergal (Signal, English)
    ("fergal", "2022-03-09 12:30", "Fergal O'Leary", "Quiz Thursday at the Castle Inn? Quizteama Aguilera needs you for the music round"),
    ("fergal", "2022-05-19 17:45", "Fergal O'Leary", "Saw this in Waterstones and thought of you: The Piano Shop on the Left Bank. Bought it, it's yours on Thursday"),
    ("fergal", "2022-08-07 09:15", "Fergal O'Leary", "Maeve is back in the water at Kinsale. Sail on Sunday if the wind behaves?"),
    ("fergal", "2022-10-30 19:00", "Fergal O'Leary", "Gráinne and I are taking you to Max's in Kinsale for your birthday, Saturday at 8. No arguments"),
    ("fergal", "2023-01-12 21:20", "Fergal O'Leary", "If you're serious about going out on your own, talk to the Local Enterprise Office. Gráinne's cousin did their Start Your Own Business course and swears by it"),
    ("fergal", "2023-05-22 18:10", "Fergal O'Leary", "For the conveyancing go to Deirdre Hegarty in Bandon, she did ours, straight as a die"),
    ("fergal", "2023-06-15 16:40", "Fergal O'Leary", "My last day at the ESB is 30 June. 38 years. Pints on me in the Castle Inn"),
    ("fergal", "2023-08-24 20:00", "Fergal O'Leary", "Bring Shiv on Saturday, Gráinne wants to meet her properly"),
    ("fergal", "2023-09-04 10:00", P, "New number from today, the old 086 one is gone: 089 461 2207"),
    ("fergal", "2023-10-13 18:30", "Fergal O'Leary", "Van's loaded, see you at Summerhill at 9. Tell Tadek to bring the straps"),
    ("fergal", "2024-02-24 15:00", "Fergal O'Leary", "That Kangoo is silent as a ghost. Does a piano fit in the back?"),
    ("fergal", "2024-06-13 22:10", "Fergal O'Leary", "We're renaming the quiz team. Quizteama Aguilera is out, Les Quizérables is in. Democracy has spoken"),
    # --- Tadek (Telegram, Polish)
    ("tadek", "2022-04-09 08:30", "Tadeusz Nowak", "Piotrek, w sobotę łowimy z falochronu w Crosshaven? Mam nowe wędki z Lidla 😄"),
    ("tadek", "2022-09-06 19:40", "Tadeusz Nowak", "Znalazłem ci chór! Lee Valley Singers szukają basów, próby we wtorki w sali parafialnej w Blackpool. Bożena kiedyś tam śpiewała"),
    ("tadek", "2022-12-20 12:00", "Tadeusz Nowak", "Wigilia u nas, 24-go o 17. Bożena robi karpia i uszka, przyjdź koniecznie"),
    ("tadek", "2023-01-25 21:00", "Tadeusz Nowak", "Słyszałem, że idziesz na swoje! Mój Kuba zrobi ci stronę internetową, za darmo"),
    ("tadek", "2023-10-13 20:00", "Tadeusz Nowak", "Jutro o 8 jestem z przyczepą. Meble spakowane?"),
    ("tadek", "2023-10-14 21:30", P, "Dzięki za dziś, bez ciebie i Fergala bym nie dał rady"),
    ("tadek", "2023-12-03 19:00", "Tadeusz Nowak", "Przeczytaj „Chłopki” Joanny Kuciak, Bożena płakała przy każdym rozdziale"),
    ("tadek", "2024-03-12 20:15", "Tadeusz Nowak", "Wracamy z Bożeną do Polski. W czerwcu, do Olsztyna. Dzieci dorosłe, a mama Bożeny choruje"),
    ("tadek", "2024-07-20 11:00", "Tadeusz Nowak", "Pozdrowienia z Olsztyna! Jezioro pięć minut od domu, ryby biorą jak szalone"),
    # --- the choir (Facebook Messenger group, English)
    ("choir", "2022-09-13 22:00", "Úna Ní Bhriain", "A warm welcome to Piotr, our new bass! Rehearsals are Tuesdays at 7:30 in the Blackpool parish hall"),
    ("choir", "2022-11-22 21:30", "Úna Ní Bhriain", "Christmas concert: Saturday 17 December, St Fin Barre's Cathedral, 8pm. Black with a splash of red"),
    ("choir", "2023-03-14 22:00", "Úna Ní Bhriain", "We're in the Cork International Choral Festival! Our slot is 29 April at 2pm in City Hall"),
    ("choir", "2023-04-29 18:00", "Úna Ní Bhriain", "SECOND PLACE in the adult mixed category!! So proud of every one of you"),
    ("choir", "2023-11-07 21:45", "Declan Barry", "Piotr, any chance you'd look at the parish hall piano? It's gone very sour since the heating came on"),
    ("choir", "2024-02-06 22:05", "Úna Ní Bhriain", "Solos for the spring concert: Maura has the Pie Jesu, Piotr the Libera me"),
    ("choir", "2024-03-19 22:00", "Úna Ní Bhriain", "Spring concert: Sunday 21 April, 4pm, Triskel Christchurch. Piotr tells me the piano there is in very good shape 😉"),
    ("choir", "2024-06-04 21:50", "Úna Ní Bhriain", "After twelve years I'm stepping down as director. Colm Desmond takes over from September, you'll love him"),
    ("choir", "2024-08-13 20:30", "Maura Kingston", "Congratulations to our two lovebirds on the engagement!! 🥂"),
    # --- the piano technicians' Discord (#tools-and-parts, English and a little Polish)
    ("discord", "2022-10-11 19:20", "Giulia Ferraro", "I use the TuneLab app for pitch raises, the over-pull calculation alone is worth it"),
    ("discord", "2023-04-20 20:00", P, "First job on my own: a 1912 Bechstein model V for an arts centre in Cork. Hammers are shot. Where do you get good ones these days?"),
    ("discord", "2023-04-20 20:31", "Henk van den Berg", "For a Bechstein go to Abel in Frankenhardt. Hand-made, worth every cent"),
    ("discord", "2023-09-25 19:10", P, "Bechstein finished and delivered. New Abel hammers, rebushed keys, new bass strings. Photos below"),
    ("discord", "2024-01-15 20:40", "Mateusz Kowal", "Jak tam twój uczeń? Mój pierwszy po roku sam stroił"),
    ("discord", "2024-01-15 20:52", P, "Oisín ma dobry słuch, ale cierpliwości zero 😄"),
    ("discord", "2024-03-21 18:15", "Henk van den Berg", "Careful with CA glue on old pinblocks, I've seen one crack right through"),
]

# WhatsApp's own lines in the family group (Polish Android): (time, text)
FAMILY_EVENTS = [
    ("2022-01-02 12:00", "Jędrek utworzył grupę „Zielińscy”"),
    ("2022-01-02 12:01", "Jędrek dodał(a) cię"),
    ("2023-05-14 09:20", "Jędrek zmienił nazwę grupy na „Zielińscy + Zosia 👶”"),
    ("2024-01-14 13:02", "Kasia zmieniła nazwę grupy na „Wesele Kasi i Rory'ego 💍”"),
    ("2024-09-22 18:01", "Jędrek zmienił nazwę grupy na „Zielińscy & O'Sullivanowie”"),
]

# the mentoring call (Zoom transcript, 14 February 2023, 11:00 in Cork = GMT)
MENTORING = [
    ("Liam Cotter", "Morning Piotr, can you hear me? Great. I'm Liam Cotter, I'm one of the mentors with the Local Enterprise Office."),
    ("Piotr Zieliński", "Good morning. Yes, I hear you fine."),
    ("Liam Cotter", "So tell me about yourself and the business."),
    ("Piotr Zieliński", "I'm a piano technician. Fifteen years at Crowley's on MacCurtain Street, and before that many years in Poland."),
    ("Liam Cotter", "And the plan?"),
    ("Piotr Zieliński", "I leave Crowley's at the end of March and start on my own on the third of April. The name will be Zieliński Piano Care, it was my daughter's idea."),
    ("Liam Cotter", "I like it. What will you charge?"),
    ("Piotr Zieliński", "A hundred and ten euro a tuning, more for repairs. About sixty regular clients told me they would follow me."),
    ("Liam Cotter", "That's a very good base for year one. And transport?"),
    ("Piotr Zieliński", "My van, a 2012 Transit Connect. It has done two hundred and forty thousand kilometres, so it is not young."),
    ("Liam Cotter", "Keep an eye on that. Apply for the Trading Online Voucher for the website, and register with Revenue as self-employed before you start."),
    ("Piotr Zieliński", "My friend's son is already making the website."),
    ("Liam Cotter", "Perfect. Send me your cash-flow sheet by Friday and we'll go through it next month."),
]

JOURNAL = {
    "2022-03-05": "Fourteen years at Crowley's next month. Same bench, same smell of felt and glue. Home to the flat on Summerhill North, Bursztyn, my old Owczarek Nizinny, asleep on my feet.",
    "2022-05-26": "Fergal's book about the piano shop in Paris. Read half of it on the bus. The man in it is too romantic about pianos, but he is right about the people who own them.",
    "2022-07-24": "Gdańsk. Mama is thinner. My brother Andrzej, Jędrek to everyone since we were boys, and I fixed the fence at the działka, then vodka with the neighbour, like in 1985.",
    "2022-09-13": "First rehearsal with the Lee Valley Singers. Twenty-six voices, only four basses. A woman in the altos, Siobhán, laughed at my Polish vowels in the Latin.",
    "2022-10-08": "Coffee with Siobhán at the Crawford. Two hours went like ten minutes.",
    "2022-11-05": "59 on Thursday. Max's tonight with Fergal and Gráinne. Kasia called from Galway, Marek from Wrocław.",
    "2022-12-24": "Wigilia at Tadek and Bożena's. Karp, uszka, opłatek. I cried a little at the kolędy, nobody noticed except Bożena.",
    "2023-02-10": "Bursztyn. Fifteen years. The flat is so quiet.",
    "2023-02-14": "Zoom with Liam from the Enterprise Office. He thinks the numbers work. I think so too, most days.",
    "2023-03-31": "Last day at Crowley's. Brendan gave me his father's tuning hammer, and a bottle of Jameson. Fifteen years.",
    "2023-04-03": "First day as my own boss. Three tunings, one in Douglas, two in Ballincollig. Nobody to blame but me.",
    "2023-07-16": "Gdańsk with Siobhán. Mama took her hand and didn't let go all afternoon.",
    "2023-09-22": "The Bechstein went back to Triskel today. Twenty weeks of work. When the first chord rang in the church I had to go outside for a minute.",
    "2023-10-14": "Moved. 4 Higher Street, Summercove. The harbour from the kitchen window. Fergal and Tadek carried the Petrof, my upright from 1978, and swore at it in two languages.",
    "2023-12-25": "Christmas in the cottage with Siobhán and Cian. Cian brought maple syrup and a cold from Toronto.",
    "2024-01-08": "Oisín's first day. Nineteen, good ears, no patience. Reminds me of me at the Calisia factory in Kalisz in 1983.",
    "2024-03-30": "Siobhán moved in today. Her books took more boxes than my tools.",
    "2024-05-04": "Dolly came home. She walked round every room twice and then slept on Siobhán's coat for four hours.",
    "2024-08-09": "Asked Siobhán at Charles Fort at sunset, with Babcia Helena's ring, resized in Cork. She said yes before I finished the sentence.",
    "2024-09-14": "Kasia's wedding in Oliwa. I gave the speech in Polish and English, and each half of the room understood one half.",
    "2024-10-14": "A year in the cottage. Oisín tuned the Petrof alone today and I found nothing to correct. Nearly nothing.",
}

QUOTE = """Condition report and quotation
Date: 24 April 2023
Instrument: C. Bechstein grand piano, model V, serial no. 104882, built in Berlin in 1912
Client: Triskel Christchurch, Tobin Street, Cork (contact: Aoife Kiely)
Condition: hammers badly worn and grooved; key bushings loose; bass strings dead; soundboard sound, two small cracks to be shimmed; pinblock firm
Work proposed: a new Abel hammer set, rebushing of all keys, new bass strings, full regulation and voicing, three tunings after delivery
Duration: about 20 weeks in the workshop
Total: €14,800 including VAT, half on acceptance, half on delivery
Zieliński Piano Care, Piotr Zieliński, 086 314 2207
"""

INVOICE = [
    "Bandon Motors Ltd, Clonakilty Road, Bandon, Co. Cork",
    "INVOICE 2024-0219",
    "Date: 22 February 2024",
    "Customer: Piotr Zielinski, 4 Higher Street, Summercove, Kinsale, Co. Cork",
    "Vehicle: Renault Kangoo Van E-Tech Electric, 2024, registration 241-C-2093",
    "Price of vehicle: EUR 38,450.00",
    "SEAI electric small public service vehicle grant: EUR -3,800.00",
    "Trade-in: Ford Transit Connect 2012, 12-C-4471: EUR -2,000.00",
    "Balance paid by bank transfer: EUR 32,650.00",
    "Warranty: 5 years or 100,000 km; battery 8 years or 160,000 km",
]

# sender: (address, subject); "Newsletter" and "Customer" draw theirs from the lists below
MAIL = {
    "Cork School of Music": ("pianos@csm.example.ie", "Piano tuning contract 2022/23"),
    "Ryanair": ("itinerary@ryanair.example", "Your Ryanair booking"),
    "Local Enterprise Office Cork City": ("training@leo-corkcity.example.ie", "Start Your Own Business: registration"),
    "Revenue": ("noreply@revenue.example.ie", "Registration confirmation"),
    "AIB Mortgages": ("mortgages@aib.example.ie", "Your mortgage approval"),
    "Deirdre Hegarty Solicitors": ("deirdre@hegartysolicitors.example.ie", "4 Higher Street, Summercove: closing"),
    "Triskel Christchurch": ("aoife.kiely@triskel.example.ie", "The Bechstein"),
    "NCTS": ("results@ncts.example.ie", "Your NCT result"),
    "Bandon Motors": ("sales@bandonmotors.example.ie", "Your new Kangoo"),
    "Youghal Greyhound Rescue": ("adopt@youghalgreyhounds.example.ie", "Your adoption application"),
    OWNER: (MAIL_ADDRESS, ""),
}
MBOX = [  # (time, sender, recipient or "", subject or "", body)
    ("2022-04-04 10:15", "Cork School of Music", "", "",
     "Dear Piotr, your tuning contract for 2022/23 is renewed: 14 pianos, twice a year, in August and in January. "
     "Please invoice through Crowley's as before"),
    ("2022-05-10 21:05", OWNER, "Nora Coakley <nora.coakley@eircom.example>", "Re: tuning the Challen",
     "Dear Mrs Coakley, a standard tuning is €110 and I can come on Thursday 12 May at 10. "
     "Kind regards, Piotr Zieliński | Crowley's Music Centre | 086 314 2207"),
    ("2022-07-01 14:20", "Ryanair", "", "",
     "Booking reference QX4T7P: Cork - Gdańsk, Friday 22 July 2022, departure 16:55, 1 adult, 1 bag of 20 kg"),
    ("2023-01-16 09:00", "Local Enterprise Office Cork City", "", "",
     "You are registered for Start Your Own Business: six Wednesday evenings from 8 February 2023, 18:30-21:00, "
     "City Hall, Cork. The course fee of €80 is due on the first evening"),
    ("2023-03-28 11:30", "Revenue", "", "",
     "You are registered for Income Tax as a self-employed person from 3 April 2023. "
     "Trade description: piano tuning and repair"),
    ("2023-06-02 19:45", "Ryanair", "", "",
     "Booking reference ZK29MW: Cork - Gdańsk, Saturday 15 July 2023, departure 11:20, 2 adults"),
    ("2023-06-20 16:00", "AIB Mortgages", "", "",
     "We are pleased to confirm your mortgage approval: €185,000 over 15 years for 4 Higher Street, Summercove, "
     "Kinsale. The approval is valid for six months"),
    ("2023-09-29 12:10", "Deirdre Hegarty Solicitors", "", "",
     "Dear Piotr, contracts are now signed on both sides. The closing date is Friday 13 October 2023, "
     "and the keys will be with the auctioneer from 2pm"),
    ("2023-09-26 10:30", "Triskel Christchurch", "", "",
     "Piotr, thank you. The Bechstein sounds magnificent, our first recital on it is on 14 October. "
     "The final payment has gone through today. Aoife"),
    ("2024-01-18 15:40", "NCTS", "", "",
     "Vehicle 12-C-4471 (Ford Transit Connect) has failed its test. Major defects: brakes and corrosion of the "
     "underbody. A retest must be done within 30 days"),
    ("2024-02-19 17:00", "Bandon Motors", "", "",
     "Hi Piotr, your Renault Kangoo E-Tech is ready for collection on Thursday 22 February from 10am. "
     "Bring the Transit and its logbook for the trade-in"),
    ("2024-03-11 20:30", OWNER, "Eamon Fitzgerald <efitz@gmail.example>", "Re: piano tuning",
     "Hello Mr Fitzgerald, my rate for a tuning is now €130, including small repairs. I can come on Tuesday "
     "19 March in the morning. Best wishes, Piotr Zieliński, Zieliński Piano Care, 089 461 2207"),
    ("2024-04-26 13:15", "Youghal Greyhound Rescue", "", "",
     "Good news: your home check passed. Dolly (she raced as Knockmore Dolly) can come home with you on "
     "Saturday 4 May. Please bring a collar and a lead, we will give you her muzzle"),
    ("2024-08-02 22:00", "Ryanair", "", "",
     "Booking reference LP8RDN: Cork - Gdańsk, Tuesday 10 September 2024, departure 07:05, 2 adults, 2 bags of 20 kg"),
]
NEWSLETTERS = ["Lidl Ireland: this week's offers", "Bank of Ireland: your statement is ready", "Ryanair: flash sale",
               "Spotify: new music for you", "Allegro: twoja paczka jest w drodze", "Amazon: your order has shipped",
               "Irish Examiner: morning briefing", "Woodies: garden days", "Pianoteq: version update",
               "RTÉ Lyric FM: this week's concerts", "Electric Ireland: your bill is ready", "Duolingo: Irish lesson"]
# customers write in from templates: (subject, body with {piano}, {place}, {year}, {first})
CUSTOMER_NAMES = ["Máire Lynch", "John Buckley", "Sr. Bernadette", "Gavin O'Brien", "Helen Crowe", "Niamh Ahern",
                  "Tom Desmond", "Ruth Kelleher", "Pádraig Hayes", "Agnieszka Wójcik", "Eileen Cronin", "Dave Murray",
                  "Orla Twomey", "Brian Kenneally", "Sinéad Walsh", "Liz Harrington", "Marcin Lewandowski",
                  "Ger McCarthy", "Fiona Daly", "Conor Ring"]
PIANOS = ["Yamaha U1", "Kawai K-300", "Bentley upright", "Challen baby grand", "Steinway model O", "Petrof upright",
          "Danemann upright", "Knight K10", "Broadwood grand", "Chappell upright", "Yamaha C3", "Rippen"]
PLACES = ["Douglas", "Ballincollig", "Carrigaline", "Blarney", "Midleton", "Cobh", "Bandon", "Glanmire", "Mallow",
          "Kinsale", "Passage West", "Macroom", "Youghal", "Crosshaven"]
CUSTOMER_MAIL = [
    ("Tuning", "Hi, could you tune our {piano} in {place}? It hasn't been done since {year}."),
    ("Piano for sale, worth it?", "Hello, I'm looking at a second-hand {piano} in {place}. Would you come and look at it before I buy?"),
    ("Sticking key", "Dear Mr Zieliński, one key in the middle of our {piano} sticks down after you play it. Is that a big job?"),
    ("Lessons", "Hi Piotr, {first} is starting piano lessons. Is our old {piano} good enough or should we get a digital one?"),
    ("Moving house", "Hi, we're moving house to {place} with a {piano}. Do you move pianos, or could you recommend someone?"),
    ("Thank you", "Thank you for coming out to {place}, the {piano} sounds lovely again."),
    ("Before Christmas", "Hello, any chance of a tuning for the {piano} before Christmas? We're in {place}, mornings are best."),
    ("Strojenie pianina", "Dzień dobry, mam {piano} po babci w {place}, czy mógłby pan je nastroić? Ostatnio w {year} roku."),
    ("Pedal squeak", "The sustain pedal on our {piano} squeaks terribly since we moved it. Can you have a look? We're in {place}."),
    ("Quote for regular tunings", "We have a {piano} in the hotel lobby in {place}. Could you quote for tunings four times a year?"),
]

EML = [
    ("Sale agreed - 4 Higher Street, Summercove.eml", "Conor Hurley", "conor@harbourproperties.example.ie",
     "Sale agreed: 4 Higher Street, Summercove", "2023-05-24 16:20",
     "Dear Piotr,\n\nI'm delighted to confirm sale agreed at €268,000 for 4 Higher Street, Summercove, Kinsale, "
     "subject to contract and survey. Please send me your solicitor's details and I'll forward the contracts "
     "to them.\n\nThe vendors are happy to leave the stove and the garden shed.\n\nKind regards,\nConor Hurley\n"
     "Harbour Properties Kinsale"),
    ("Apprenticeship - Oisín Walsh.eml", "Oisín Walsh", "oisin.walsh03@gmail.example",
     "Apprenticeship", "2023-12-12 19:40",
     "Hi Piotr,\n\nThank you so much for taking me on. I'll be there on Monday 8 January at 8:30, and I've ordered "
     "my own tuning lever like you said. My mam says thanks as well, she's been hearing about pianos from me "
     "since I was twelve.\n\nSee you then,\nOisín"),
]

# (start, end or None for all day, summary, location, rule)
EVENTS = [
    ("2022-03-22 09:30", "2022-03-22 10:00", "Dentist - Dr Kearney", "South Mall, Cork", ""),
    ("2022-07-12", None, "Mama - urodziny 🎂", "", "FREQ=YEARLY"),
    ("2022-07-22 16:55", "2022-07-22 20:40", "Lot do Gdańska", "Cork Airport", ""),
    ("2022-09-13 19:30", "2022-09-13 21:30", "Choir rehearsal", "Blackpool parish hall, Cork", "FREQ=WEEKLY;BYDAY=TU"),
    ("2022-12-17 20:00", "2022-12-17 22:00", "Christmas concert - Lee Valley Singers", "St Fin Barre's Cathedral, Cork", ""),
    ("2023-02-08 18:30", "2023-02-08 21:00", "LEO Start Your Own Business", "City Hall, Cork", "FREQ=WEEKLY;BYDAY=WE;COUNT=6"),
    ("2023-02-14 11:00", "2023-02-14 12:00", "Zoom: mentoring with Liam Cotter (LEO)", "Zoom", ""),
    ("2023-04-29 14:00", "2023-04-29 14:30", "Choral Festival - our slot", "City Hall, Cork", ""),
    ("2023-07-15 11:20", "2023-07-15 15:05", "Lot do Gdańska z Siobhán", "Cork Airport", ""),
    ("2023-09-22 09:00", "2023-09-22 13:00", "Bechstein delivery to Triskel", "Tobin Street, Cork", ""),
    ("2023-10-13 14:00", "2023-10-13 15:00", "Keys - Harbour Properties", "Pearse Street, Kinsale", ""),
    ("2023-10-14 08:00", "2023-10-14 18:00", "Przeprowadzka", "Summerhill North - Summercove", ""),
    ("2024-01-08 08:30", "2024-01-08 17:00", "Oisín starts", "Workshop", ""),
    ("2024-01-18 12:15", "2024-01-18 13:00", "NCT Transit", "NCT centre, Little Island", ""),
    ("2024-02-22 10:00", "2024-02-22 11:00", "Collect Kangoo", "Bandon Motors, Clonakilty Road, Bandon", ""),
    ("2024-04-21 16:00", "2024-04-21 18:00", "Spring concert", "Triskel Christchurch, Cork", ""),
    ("2024-05-04 11:00", "2024-05-04 12:00", "Collect Dolly 🐕", "Youghal Greyhound Rescue", ""),
    ("2024-09-10 07:05", "2024-09-10 10:50", "Lot do Gdańska - wesele", "Cork Airport", ""),
    ("2024-09-14", None, "Ślub Kasi i Rory'ego", "Katedra Oliwska, Gdańsk", ""),
    ("2024-10-08 09:00", "2024-10-08 09:30", "Dentist - Dr Kearney", "South Mall, Cork", ""),
]

# small talk: a plain string, or (text, first day, last day) for what is only said in a period
_DOG = ("2022-03-01", "2023-02-09")
_DOLLY = ("2024-05-04", "2024-10-31")
CHATTER = {
    "fam": ["ok", "tak", "nie", "haha", "😂", "❤️", "🙏", "👍", "Dzień dobry!", "Dobranoc", "Jak się czujesz, mamo?",
            "Dobrze, tylko kolano boli", "U nas leje od rana", "Tu słońce, ale zimno", "Co na obiad?", "Pierogi",
            "Zadzwonię wieczorem", "Kto ma urodziny w tym tygodniu?", "<pliki pominięto>", "Ale zdjęcie!",
            "Pozdrowienia z Cork", "Pozdrowienia z Gdańska", "Całuski", "Trzymajcie się", "Lechia znowu przegrała",
            "Widzieliście wiadomości?", "Jak praca?", "Dużo roboty, dzięki Bogu", "Kiedy się zobaczymy?",
            "Może w wakacje", "Mama pyta, czy jecie", "Jemy, jemy 😄", "Super", "Brawo!", "Ojej", "Wszystkiego dobrego",
            "Zdrówka", "Dzięki", "Nie ma za co", "Tęsknimy", "Buziaki dla wszystkich", "No i pięknie",
            ("Bursztyn też pozdrawia 🐕", *_DOG), ("Jak tam Bursztyn?", *_DOG),
            ("Dolly śpi na kanapie jak księżniczka", *_DOLLY), ("Zdjęcie Dolly poproszę!", *_DOLLY),
            ("Zosia rośnie jak na drożdżach", "2023-06-01", "2024-10-31"), ("Jak tam w Kinsale?", "2023-10-15", "2024-10-31")],
    "mama": ["Dzień dobry synku", "Dobranoc", "Zjadłeś coś?", "Tak, mamo", "Jak zdrowie?", "Dobrze, mamo, nie martw się",
             "Zimno u was?", "Ubieraj się ciepło", "Byłam w kościele", "Ksiądz pytał o ciebie", "Dzwoniła ciocia Basia",
             "Ciśnienie w normie", "Zadzwonię w niedzielę", "Kocham cię", "Ja ciebie też", "Sąsiadka przyniosła mi jabłka z działki",
             "Był listonosz", "Ugotowałam rosół", "Oglądałam teleturniej", "Pozdrów Kasię", "Jędrek był na obiedzie",
             "Ok mamo", "<pliki pominięto>", "Dziękuję", "Szczęść Boże", "Uważaj na siebie",
             "Ile pracujesz, synku?", "Za dużo", "Odpocznij trochę", ("Pozdrów Siobhán", "2023-06-05", "2024-10-31"),
             ("A Bursztyn zdrowy?", *_DOG), ("Pogłaszcz Dolly ode mnie", *_DOLLY)],
    "marek": ["Cześć tato", "Siema", "Jak leci?", "Spoko", "Dużo pracy", "Oglądałeś mecz?", "Lech gra w niedzielę",
              "Zadzwonię w weekend", "ok", "haha", "😂", "👍", "Ola pozdrawia", "Pozdrów Olę", "Co słychać w Cork?",
              "Pada, jak zawsze", "Wrocław w korkach", "Jak samochód?", "Jeździ", "Mam pytanie o laptopa",
              "Zrestartuj go", "Działa, dzięki", "<pliki pominięto>", "Jutro nie mogę, sprint",
              ("Zosia nie spała całą noc", "2023-05-20", "2024-10-31"), ("Zobacz, jak Zosia się śmieje", "2023-05-20", "2024-10-31"),
              ("Wyślij zdjęcie Dolly", *_DOLLY)],
    "siobhan": ["Morning love", "Night night", "x", "xx", "❤️", "😂", "Home safe?", "Home now", "On my way", "Running late, sorry",
                "How was your day?", "Long one. Four tunings and a cracked bridge", "Dinner at mine?", "Lovely", "Yes please",
                "Rehearsal tonight?", "I'll pick you up at 7", "The altos were flat again", "Úna was in great form",
                "Grand", "Ah no", "Did you see the rain?", "Miss you", "Miss you too", "Tea?", "Call you after school",
                "Marking copies all evening", "The kids made me a card", "Walk on Sunday?", "Kinsale or Fountainstown?",
                "What's the Polish for tired?", "Zmęczony", "Ha, I knew that one", "Tesco or Lidl?", "Lidl, obviously",
                "Love you", "Kocham cię", "🥰", "Sleep well", "Safe home", "Good luck with the Steinway today",
                ("Give Bursztyn a cuddle from me", "2022-10-05", "2023-02-09"),
                ("Dolly stole my sock again", *_DOLLY), ("Did you walk Dolly?", *_DOLLY),
                ("Traffic on the Kinsale road is desperate", "2023-10-15", "2024-10-31")],
    "kasia": ["Hej tato!", "Cześć", "How are you?", "Busy busy", "Crazy day at the clinic", "Spayed three cats today",
              "😂", "❤️", "Miss you", "Tęsknię", "Rory says hi", "Pozdrów Rory'ego", "Call on Sunday?", "ok",
              "Galway is so windy today", "Did you eat?", "Tak, jadłem", "Mama dzwoniła?", "Send me a photo",
              "Love you tato", "Night!", "<photo>", "<photo>", "Dobranoc", "I'm on call this weekend", ("Zosia is SO cute", "2023-05-15", "2024-10-31"),
              ("How's Siobhán?", "2023-01-01", "2024-10-31"), ("Wedding stress is real", "2024-01-14", "2024-09-13")],
    "fergal": ["Pint?", "Castle Inn at 8?", "Grand", "Sound", "Ha", "😂", "Howya", "Not a bother", "Did you see the match?",
               "Cork were robbed", "Rebels!", "Sail Sunday?", "Too windy", "Quiz Thursday?", ("Can't, choir", "2022-09-13", "2024-10-31"),
               "We came fourth again", "The music round saved us", "How's the knee?", "Still creaking",
               "Gráinne says hello", "Tell her I said hi", "See you there", "On my way", "Running late", "Legend",
               "Fair play", "What's the story?", "Nothing strange", "Coffee in Kinsale?", "Deadly",
               ("Tell Shiv I said hi", "2023-01-01", "2024-10-31"), ("Bring Dolly to the pier", *_DOLLY)],
    "tadek": ["Cześć Piotrek", "Siema", "Jak tam?", "Stara bieda", "Haha", "😂", "👍", "Ryby biorą?", "Nic nie złowiłem",
              "Piwo w piątek?", "Może w sobotę", "Bożena pozdrawia", "Pozdrów Bożenę", "Co słychać?", "Robota, robota",
              "Mam fuchę w Ballincollig", "Pomożesz mi w sobotę?", "Jasne", "Wpadnij na kawę", "Dzięki, stary",
              "Widziałeś mecz reprezentacji?", "Wstyd", "Pogoda jak zwykle", "Zadzwonię", "Do zobaczenia",
              ("Jak tam nad jeziorem?", "2024-06-20", "2024-10-31")],
    "choir": ["Thanks Úna!", "See you Tuesday", "Can't make it tonight, sorry", "Who has the Rutter score?",
              "I'll bring biscuits", "Great rehearsal tonight", "The tenors were on fire", "👏", "❤️", "Will do",
              "Is parking ok at the hall?", "Sopranos, bring pencils please", "Lovely evening", "Get well soon Maura!",
              "Concert dress: black", "Who's doing the tea rota?", "Me this week", "Happy birthday Declan!", "🎶",
              "Apologies for Tuesday", "<photo>", "Tickets are on sale at the door", "Well done everyone", "See you all next week"],
    "discord": ["anyone tried the new Hale tuning lever?", "same here", "lol", "👍", "nice work", "that bridge looks rough",
                "glue it and clamp it overnight", "which felt do you use for dampers?", "depends on the piano",
                "photos or it didn't happen", "I'd replace the whole set", "ouch", "that's a beautiful action",
                "humidity is killing me this month", "my customer put a plant on top of the piano again",
                "a cat was sleeping inside the grand", "classic", "true", "thanks, will try",
                "Dzięki!", "pozdro z Poznania", "anyone going to the Europiano congress?", "not this year",
                "soundboard cracks: shim or leave?", "leave it if it doesn't buzz"],
}

# source: (people other than the owner, chatter list, mean days between exchanges, first day or None)
SOURCES = {
    "family": (["Mama", "Jędrek", "Kasia", "Marek"], "fam", 4, None),
    "mama": (["Mama"], "mama", 6, None),
    "marek": (["Marek"], "marek", 9, None),
    "siobhan": (["Siobhán Murphy"], "siobhan", 2, "2022-10-05 20:00"),
    "kasia": (["Kasia Zielińska"], "kasia", 9, None),
    "fergal": (["Fergal O'Leary"], "fergal", 7, None),
    "tadek": (["Tadeusz Nowak"], "tadek", 9, None),
    "choir": (["Úna Ní Bhriain", "Siobhán Murphy", "Declan Barry", "Maura Kingston"], "choir", 7, "2022-09-13 21:00"),
    "discord": (["Henk van den Berg", "Giulia Ferraro", "Mateusz Kowal", "Seán Doyle"], "discord", 8, None),
}


def _time(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M")


def _said(item, when: datetime) -> str | None:
    """A chatter item's words, if it may be said on that day."""
    if isinstance(item, str):
        return item
    text, first, last = item
    return text if first <= f"{when:%Y-%m-%d}" <= last else None


def _messages(source: str, rng: random.Random) -> list[tuple[datetime, str, str]]:
    """The source's facts among its small talk, in time order, the owner named as the source names him."""
    people, chatter, every, first = SOURCES[source]
    me = OWNER_IN[source]
    facts = [(_time(t), me if who == P else who, text) for s, t, who, text in FACTS if s == source]
    out = list(facts)
    taken = {t for t, _, _ in facts}
    fact_days = {f"{t:%Y-%m-%d}" for t in taken}
    day = _time(first) if first else START
    while day < END:
        day += timedelta(days=rng.randint(1, 2 * every - 1))
        if f"{day:%Y-%m-%d}" in fact_days:
            continue
        at = day.replace(hour=rng.randint(7, 22), minute=rng.randint(0, 59))
        for i in range(rng.randint(2, 5)):
            who = me if i % 2 else rng.choice(people)
            when = at + timedelta(minutes=i * rng.randint(1, 7))
            text = _said(rng.choice(CHATTER[chatter]), when)
            if text and when not in taken and when < END:
                taken.add(when)
                out.append((when, who, text))
    return sorted(out)


# WhatsApp's end-to-end notice on his phone, an Android in Polish
NOTICE_PL = ("Wiadomości i połączenia są w pełni zaszyfrowane. Nikt spoza czatu, nawet WhatsApp, nie może ich "
             "odczytać ani odsłuchać. Stuknij, aby dowiedzieć się więcej.")


def _ios_seconds(t: datetime) -> int:
    """Seconds for a stamp written to the minute, the same every run."""
    return (t.minute * 13 + t.hour * 7) % 60


DISCORD_USERS = {  # shown name: (id, user name)
    "Piotr Z": ("402211937712340001", "piotr_tunes"),
    "Henk van den Berg": ("318870221143110002", "henkvdb"),
    "Giulia Ferraro": ("512093388701220003", "giulia.ferraro"),
    "Mateusz Kowal": ("611234560981230004", "mateusz_k"),
    "Seán Doyle": ("702345671092340005", "seandoyle_pianos"),
}
DISCORD_GUILD = {"id": "1009988776655443322", "name": "Piano Technicians EU",
                 "iconUrl": "https://cdn.discordapp.com/icons/1009988776655443322/a.png"}
DISCORD_CHANNEL = {"id": "1009988776655443399", "type": "GuildTextChat", "categoryId": "1009988776655443300",
                   "category": "Workshop", "name": "tools-and-parts", "topic": "Tools, parts, suppliers, horror stories"}


def _discord_photos(n: int, text: str) -> list[dict]:
    if not text.endswith("Photos below"):
        return []
    return [{"id": str(1150000000000000000 + n), "url": "https://cdn.discordapp.com/attachments/bechstein1.jpg",
             "fileName": "bechstein_done.jpg", "fileSizeBytes": 2483112}]


_PLAIN = str.maketrans("áéíóúś", "aeious", ".'")


def _mails(rng: random.Random) -> list[exports.Mail]:
    """His Gmail: the mails that matter among newsletters and customers' questions, in time order."""
    me = f"{OWNER} <{MAIL_ADDRESS}>"
    mails = [(_time(t), who, to, subject, body) for t, who, to, subject, body in MBOX]
    day = START
    while day < END:
        day += timedelta(days=rng.randint(2, 9))
        if day >= END:
            break
        if rng.random() < 0.35:
            subject, body = rng.choice(CUSTOMER_MAIL)
            body = body.format(piano=rng.choice(PIANOS), place=rng.choice(PLACES), year=rng.randint(2009, 2020),
                               first=rng.choice(["Aoibhinn", "Jack", "Emma", "Seán", "Zuzia", "Cillian"]))
            mails.append((day.replace(hour=rng.randint(8, 21), minute=rng.randint(0, 59)),
                          rng.choice(CUSTOMER_NAMES), "", subject, body))
        else:
            subject = rng.choice(NEWSLETTERS)
            mails.append((day.replace(hour=6, minute=30), "Newsletter", "", subject, subject + "."))
    out = []
    for when, who, to, subject, body in sorted(mails):
        if who == OWNER:
            address, labels, recipient = MAIL_ADDRESS, "Sent", to
        elif who in MAIL:
            address, subject = MAIL[who][0], MAIL[who][1]
            labels, recipient = "Inbox", me
        elif who == "Newsletter":
            address, labels, recipient = "news@letters.example", "Category Promotions", me
        else:
            address = ".".join(who.lower().translate(_PLAIN).split()) + "@gmail.example"
            labels, recipient = "Inbox", me
        text = body if body.endswith((".", "!", "?")) else body + "."
        out.append(_mail(when, who, address, recipient, subject, text, labels=labels))
    return out


def _mail(when: datetime, who: str, address: str, to: str, subject: str, body: str, *,
          labels: str | None) -> exports.Mail:
    """A mail of his, its Message-ID made of its body."""
    return exports.Mail(when.replace(tzinfo=CORK), who, address, to, subject, body,
                        tag=zlib.crc32(body.encode()) % 10**6, domain="mail.example", labels=labels)


# --- the archive ----------------------------------------------------------------------------------

def write(archive: Path = ARCHIVE) -> None:
    rng = random.Random(19631103)
    if archive.is_dir():
        shutil.rmtree(archive)
    archive.mkdir(parents=True)
    android = {"stamp": exports.android_stamp_pl, "notice": (START - timedelta(days=70), NOTICE_PL)}
    exports.whatsapp_android(archive / "Czat WhatsApp z Zielińscy & O'Sullivanowie.txt", _messages("family", rng),
                             **android, events=[(_time(t), text) for t, text in FAMILY_EVENTS])
    exports.whatsapp_android(archive / "Czat WhatsApp z Mama.txt", _messages("mama", rng), **android)
    exports.whatsapp_android(archive / "Czat WhatsApp z Marek.txt", _messages("marek", rng), **android)
    siobhan = _messages("siobhan", rng)  # her iPhone, in English (Ireland), saved as Windows text
    exports.whatsapp_ios(archive / "WhatsApp Chat - Piotr.txt", siobhan, partner="Piotr", day="%d/%m/%Y",
                         notice=(siobhan[0][0] - timedelta(minutes=3), exports.WHATSAPP_NOTICE_EN),
                         seconds=_ios_seconds, newline="\r\n")
    kasia = "kasiazielinska_17841401234567890"
    exports.meta_thread(archive / "instagram-kasia.zielinska-2024-10-31" / "your_instagram_activity" / "messages"
                        / "inbox" / kasia / "message_1.json", _messages("kasia", rng), title="Kasia Zielińska",
                        participants=["Kasia Zielińska", OWNER], thread_path=f"inbox/{kasia}", group=False, zone=CORK)
    choir = "leevalleysingers_5512345678901234"
    exports.meta_thread(archive / "facebook-piotrzielinski-2024-10-31" / "your_facebook_activity" / "messages"
                        / "inbox" / choir / "message_1.json", _messages("choir", rng), title="Lee Valley Singers 🎶",
                        participants=["Úna Ní Bhriain", "Siobhán Murphy", "Declan Barry", "Maura Kingston", OWNER],
                        thread_path=f"inbox/{choir}", group=True, zone=CORK)
    exports.signal(archive / "signal-chats" / "Fergal O'Leary", _messages("fergal", rng), owner=OWNER, markdown=True)
    exports.telegram(archive / "Telegram Desktop" / "ChatExport_2024-10-31" / "result.json", _messages("tadek", rng),
                     owner=OWNER, owner_id="user2000417", partner="Tadeusz Nowak", chat_id=6120004417, zone=CORK)
    exports.discord(archive / "Piano Technicians EU - Workshop - tools-and-parts [1009988776655443399].json",
                    _messages("discord", rng), users=DISCORD_USERS, guild=DISCORD_GUILD, channel=DISCORD_CHANNEL,
                    exported_at="2024-10-31T21:00:00.000+00:00", zone=CORK, attachments=_discord_photos)
    exports.mbox(archive / "Takeout" / "Mail" / "All mail Including Spam and Trash.mbox", _mails(rng))
    (archive / "Takeout" / "Calendar").mkdir(parents=True)
    calendar = exports.calendar([exports.Event(*e, zone="Europe/Dublin") for e in EVENTS], name=OWNER,
                                zone="Europe/Dublin", stamp="20241031T210000Z", created="20220301T090000Z",
                                uid=lambda n, e: f"{zlib.crc32(e.summary.encode()):08x}{n:04d}@google.com")
    (archive / "Takeout" / "Calendar" / f"{OWNER}.ics").write_text(calendar, encoding="utf-8", newline="")
    for name, sender, address, subject, stamp, text in EML:  # saved .eml files, without Gmail's lines
        exports.eml(archive / name, _mail(_time(stamp), sender, address, f"{OWNER} <{MAIL_ADDRESS}>", subject, text,
                                          labels=None))
    exports.zoom_transcript(archive / "GMT20230214-110000_Recording.transcript.vtt", MENTORING, start=3.0,
                            chars_per_second=15, pause=1.2)
    exports.journals(archive, JOURNAL, title="Notes")
    exports.docx(archive / "Triskel Bechstein - condition report and quote.docx", QUOTE,
                 created=datetime(2023, 4, 24, 18, 0), heading=True, author=OWNER)
    exports.pdf(archive / "Bandon Motors invoice 2024-0219.pdf", INVOICE, producer="Bandon Motors DMS",
                created="D:20240222103000Z", gaps=(1, 3, 4))


if __name__ == "__main__":
    write()
