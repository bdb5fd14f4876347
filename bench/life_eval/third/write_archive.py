"""A third invented life for bench/life_eval.py (`--archive third`), written by someone who had read
neither the search and ranking code nor the README's account of it: Daniela "Dani" Castillo Reyes,
a biomedical (validation) engineer from Guadalajara, Mexico, who moves to Munich in September 2022,
January 2022 to September 2024, in Mexican Spanish, English and German. Her phone saves her mother
as "Mamá", her grandmother as "Abuela" and her brother Santiago as "Bro"; her school friends' group
is renamed twice; her German partner Lukas writes on Telegram in English with German, his mother
Sabine on WhatsApp in German, her friend Marisol on Signal in all three; work is a Slack export in
English; a job interview is a Zoom transcript; the lease is a German .docx. The facts the
questions ask about are stated once, in passing, often with relative dates ("ayer", "next
Friday", "am Samstag"), among small talk drawn from a seeded generator: the same bytes every run
(no hash(), no clock). This archive is for reporting only: nothing is tuned on it.

Every word here is invented for this benchmark (no real person's messages or data); it is part of
Biographer and shares the project's licence.

    python bench/life_eval/third/write_archive.py   # writes bench/life_eval/third/archive/
"""

from __future__ import annotations

import random
import shutil
import sys
import zlib
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # exports.py, the formats the lives are written in
import exports  # noqa: E402

HERE = Path(__file__).resolve().parent
ARCHIVE = HERE / "archive"
OWNER = "Daniela Castillo"
TO = f"{OWNER} <dani.castillo.reyes@example.org>"
OWNER_ALIASES = "Daniela Castillo,Daniela Castillo Reyes,Dani Castillo,Dani"
START = datetime(2022, 1, 3, 9, 0)
END = datetime(2024, 9, 30, 22, 0)
GDL, MUC = ZoneInfo("America/Mexico_City"), ZoneInfo("Europe/Berlin")
D = OWNER

# (source, local time, sender, text): the facts, each said once
FACTS: list[tuple[str, str, str, str]] = [
    # --- Mamá (WhatsApp Android, Mexican Spanish)
    ("mama", "2022-02-20 13:10", "Mamá", "Mija, ¿ya le diste de comer a Frijol? Tu papá dice que lo vio muy flaco"),
    ("mama", "2022-04-21 09:02", D, "MAMÁ ME DIERON EL TRABAJO EN ALEMANIA 😭😭 empiezo el 1 de octubre en Múnich"),
    ("mama", "2022-04-21 09:05", "Mamá", "Ay mija, qué orgullo. Tu papá ya está llorando"),
    ("mama", "2022-05-28 21:30", D, "Mamá, Emiliano y yo ya no estamos juntos. Estoy bien, de verdad, luego te cuento"),
    ("mama", "2022-09-25 18:40", "Mamá", "Frijol se queda con nosotros, no te preocupes, aquí tiene patio y tu papá lo saca diario"),
    ("mama", "2022-10-01 08:15", "Mamá", "¿Ya estás en tu cuarto? Mándame foto de la calle"),
    ("mama", "2023-03-08 20:20", "Mamá", "A tu abuela la operan de la cadera el jueves en el Hospital Santa Margarita, reza por ella"),
    ("mama", "2023-05-14 12:00", "Mamá", "Ya compramos los boletos!! Llegamos a Múnich el 8 de julio y nos regresamos el 22"),
    ("mama", "2023-07-23 10:30", "Mamá", "Ya en casa. Lukas es un amor, dile que le mando la receta del pozole"),
    ("mama", "2023-12-27 22:10", "Mamá", "Tu abuela no para de hablar del güero, dice que ya es de la familia"),
    ("mama", "2024-03-28 19:45", D, "Mamá!!! Me ascendieron, a partir de abril soy senior 🎉"),
    ("mama", "2024-06-28 17:00", "Mamá", "Hoy fue mi último día en la escuela. 32 años dando clases, ya soy oficialmente jubilada 🥹"),
    ("mama", "2024-07-17 09:20", "Mamá", "Mija, Frijol se nos fue esta mañana. Se durmió en su cobija en el patio, no sufrió. Lo enterramos bajo el limonero"),
    # --- Abuela (WhatsApp iOS, Spanish)
    ("abuela", "2022-03-12 11:40", "Abuela", "Mi niña aquí te mando la receta del mole de tu bisabuela, no se la des a nadie: chile mulato, pasilla y ancho, ajonjolí, y una tablilla de chocolate"),
    ("abuela", "2022-09-27 20:05", "Abuela", "Que Diosito te acompañe mi niña. Llévate una chamarra gruesa que allá hace mucho frío"),
    ("abuela", "2023-03-15 12:30", "Abuela", "Ya camino con la andadera mija, el doctor dice que quedó muy bien la cadera"),
    ("abuela", "2023-06-17 21:00", "Abuela", "Cumplí 84 años y tu tío Beto trajo mariachi, nomás faltabas tú"),
    ("abuela", "2023-12-26 13:15", "Abuela", "Ese güero está muy alto, ¿sí come tortillas? Dile que lo quiero mucho"),
    ("abuela", "2024-06-17 19:30", "Abuela", "85 años mi niña! Me hicieron pastel de tres leches y vinieron todos menos tú"),
    # --- Bro (WhatsApp Android, Spanish)
    ("bro", "2022-06-11 23:50", "Bro", "Wey me contrataron de sous-chef en La Tostadería, empiezo el lunes"),
    ("bro", "2022-09-26 19:10", "Bro", "Te llevo al aeropuerto el miércoles, tu vuelo sale 7:15 no? paso por ti a las 4:30"),
    ("bro", "2023-02-19 22:00", "Bro", "tienes que ver Club de Cuervos con el alemán, para que entienda a los mexicanos jaja"),
    ("bro", "2023-08-05 23:30", "Bro", "Mañana abrimos!! Taquería Don Chente, en Santa Tere, en honor al abuelo 🌮"),
    ("bro", "2023-08-07 08:05", D, "Ya vi las fotos!! Qué orgullo bro, el abuelo estaría feliz"),
    ("bro", "2024-02-14 22:40", "Bro", "Le pedí a Fer que se case conmigo y dijo que sí 💍"),
    ("bro", "2024-05-04 14:00", "Bro", "Abrimos la segunda sucursal de Don Chente en Zapopan, ya somos cadena jaja"),
    ("bro", "2024-09-01 12:20", "Bro", "Ya tenemos fecha: 15 de marzo de 2025 en la Hacienda El Carmen. Tienes que venir con Lukas"),
    # --- the school friends' group (WhatsApp Android, Spanish and English)
    ("group", "2022-01-21 18:30", "Regi", "Nos vemos el viernes en la Cantina La Perla a las 8? Xime ya dijo que sí"),
    ("group", "2022-09-22 16:00", "Caro Ibarra", "Despedida de la Dani el sábado en mi casa, traigan algo de comer y pañuelos"),
    ("group", "2022-10-15 13:05", "Caro Ibarra", "Le cambio el nombre al grupo porque ya somos internacionales 😂"),
    ("group", "2023-04-02 22:15", "Xime 🌻", "Me aceptaron en la maestría en Barcelona!!! Me voy en septiembre"),
    ("group", "2023-11-19 20:40", "Regi", "Pablo me pidió matrimonio en Tapalpa!! Todavía estoy temblando"),
    ("group", "2024-03-10 11:00", "Regi", "Ya hay fecha, girls: 12 de octubre de 2024 en Tequila, apártenla y no acepto excusas"),
    ("group", "2024-06-09 22:30", "Xime 🌻", "Gracias por venir Dani!! Barcelona te extraña already"),
    ("group", "2024-07-08 21:10", "Caro Ibarra", "Me corrieron del despacho... bueno, recorte de personal. Pero ya tengo entrevista en Oracle"),
    ("group", "2024-08-20 18:25", "Caro Ibarra", "Quedé en Oracle!!! Empiezo el 2 de septiembre en el campus de Zapopan"),
    # --- Sabine, Lukas's mother (WhatsApp iOS, German)
    ("sabine", "2023-10-09 19:20", "Sabine (Lukas Mama)", "Liebe Daniela, es war so schön, dich am Sonntag kennenzulernen! Lukas hat uns schon so viel von dir erzählt"),
    ("sabine", "2023-10-09 20:02", D, "Vielen Dank für das Essen! Der Zwetschgenkuchen war der beste, den ich je gegessen habe"),
    ("sabine", "2023-12-12 18:00", "Sabine (Lukas Mama)", "Oma Gerda strickt dir einen Schal für den Flug nach Mexiko, welche Farbe magst du?"),
    ("sabine", "2024-01-28 17:30", "Sabine (Lukas Mama)", "Wir helfen am Samstag beim Umzug, Klaus bringt den Anhänger mit"),
    ("sabine", "2024-04-15 08:50", "Sabine (Lukas Mama)", "Die Brezel ist ja zuckersüß! Ist sie aus dem Tierheim in Riem?"),
    ("sabine", "2024-07-01 10:10", "Sabine (Lukas Mama)", "Wir kommen am Samstag zur Eröffnung der Praxis, sag Lukas, wir bringen Sekt mit"),
    # --- Lukas (Telegram, English with German)
    ("lukas", "2023-01-15 11:20", "Lukas Brandt", "Hey Dani, it's Lukas from the bouldering gym 🙂 still alive after all those falls yesterday?"),
    ("lukas", "2023-01-26 20:15", "Lukas Brandt", "Next Friday, Kino? They're showing Das Leben der Anderen at the Museum Lichtspiele with English subtitles"),
    ("lukas", "2023-03-04 22:30", "Lukas Brandt", "You have to watch Dark, it's the only German show worth it, trust me"),
    ("lukas", "2023-05-19 07:30", "Lukas Brandt", "Alles Gute zum Geburtstag! Pack a bag, we're taking the train to Vienna tomorrow morning"),
    ("lukas", "2023-08-12 18:40", "Lukas Brandt", "Mein Chef at Therapiezentrum Isar wants me to do more Saturdays, ich hab echt keinen Bock mehr"),
    ("lukas", "2023-11-23 12:05", D, "I PASSED B1!!! 'gut' in everything except Sprechen lol"),
    ("lukas", "2023-12-03 21:00", "Lukas Brandt", "Flights booked: Munich to Guadalajara via Mexico City, 19 December, back 6 January. Ich freu mich so"),
    ("lukas", "2024-01-10 17:45", "Lukas Brandt", "We got it!! Frau Huber said yes to us, the flat on Untere Weidenstraße from February"),
    ("lukas", "2024-04-11 16:30", "Lukas Brandt", "She's coming home on Saturday! Brezel, 2 years old, grey tabby, the Tierheim lady says she loves radiators"),
    ("lukas", "2024-05-02 13:00", "Lukas Brandt", "Signed the lease for the Praxis on Wörthstraße in Haidhausen. Physio Brandt is real 😅"),
    ("lukas", "2024-06-03 18:20", "Lukas Brandt", "Handed in my notice at Therapiezentrum Isar today. Last day end of June"),
    ("lukas", "2024-08-19 20:00", "Lukas Brandt", "Gardasee this weekend? Flo lends us his camper van, we just have to fill the tank"),
    ("lukas", "2024-09-14 09:10", "Lukas Brandt", "Dein Termin bei der Ausländerbehörde ist am 24. um 9:30, I put it in the calendar"),
    # --- Marisol (Signal, Spanish, English and German)
    ("marisol", "2023-04-19 20:45", "Marisol Gómez", "Hola! Soy Marisol, la de la clase de alemán, la colombiana 😄 ¿vamos por un café después de clase el miércoles?"),
    ("marisol", "2023-06-10 23:10", "Marisol Gómez", "Tienes que leer Temporada de huracanes de Fernanda Melchor, es durísima pero brutal"),
    ("marisol", "2023-11-23 12:30", "Marisol Gómez", "Bestanden!!! Wir sind jetzt offiziell B1, parce 🎉"),
    ("marisol", "2024-02-20 19:00", "Marisol Gómez", "Me mudo a Hamburgo en abril, me salió el trabajo en Airbus 😭 pero te visito, promise"),
    ("marisol", "2024-08-03 22:00", "Marisol Gómez", "Te presento oficialmente a Jonas, mi novio hamburgués jaja, he says hi"),
    # --- Slack at Nordwerk Medical (English): #validation-team, #random, a DM with Tom
    ("validation", "2022-10-04 09:30", "Priya Raman", "Everyone, please welcome Daniela Castillo, who joins us from Cardiovia in Guadalajara. Tom will be her onboarding buddy for the first weeks"),
    ("validation", "2023-02-28 10:05", "Priya Raman", "The TÜV SÜD audit is moved to 14 March, please have the IQ/OQ protocols ready by the 10th"),
    ("validation", "2024-03-27 16:00", "Priya Raman", "Very happy to announce that Dani is our new Senior Validation Engineer, effective 1 April. Well deserved!"),
    ("validation", "2024-07-30 11:15", "Priya Raman", "From now on Dani will lead the Aurora stent catheter validation, please route all protocol questions to her"),
    ("random", "2022-11-15 12:40", "Tom Becker", "If anyone wants a podcast for learning German: Fest & Flauschig. Not really for learning, but it's funny"),
    ("random", "2023-09-15 14:20", "Tom Becker", "Team Wiesn table booked: Schottenhamel, Saturday 23 Sept, 11:00. Dirndl/Lederhosen optional but encouraged"),
    ("random", "2024-06-11 09:00", "Tom Becker", "I'm leaving Nordwerk at the end of July, going to Brainlab. It's been a blast, you lot"),
    ("tomdm", "2022-10-06 15:10", "Tom Becker", "Tip for the Anmeldung: go to the KVR on Ruppertstraße at 7:30, before the queue, and bring the Wohnungsgeberbestätigung"),
    ("tomdm", "2023-06-21 17:30", D, "can you cover the PQ review tomorrow? Abuela had a fall and I need to call home"),
]

# the interview (a Zoom transcript, 6 April 2022, Guadalajara 10:00 = 15:00 GMT)
INTERVIEW = [
    ("Priya Raman", "Hi Daniela, can you hear us? Great. I'm Priya, I lead the validation team, and this is Markus."),
    ("Markus Vogel", "Hello! I'm head of R&D for catheter systems."),
    ("Daniela Castillo", "Hi, nice to meet you both. Yes, I can hear you perfectly."),
    ("Priya Raman", "So Daniela, tell us about your work at Cardiovia."),
    ("Daniela Castillo", "I've been a quality engineer there for almost four years. My biggest project was the process validation for the balloon catheter line, from IQ to PQ, with the FDA inspection at the end."),
    ("Markus Vogel", "And how did the inspection go?"),
    ("Daniela Castillo", "No observations on our line, which my boss still talks about."),
    ("Priya Raman", "Nice. The team is twelve people and the working language is English, so German isn't needed on day one."),
    ("Daniela Castillo", "Good, because my German right now is zero. I start an online A1 course in May."),
    ("Markus Vogel", "Our office is in Garching, just north of Munich, on the U6. Most people live in the city."),
    ("Priya Raman", "We'd like someone to start in the autumn. Would October work for you?"),
    ("Daniela Castillo", "October works. I'd need the visa first, a Blue Card I think."),
    ("Priya Raman", "HR helps with all of that. We'll be in touch within a week."),
]

JOURNAL = {
    "2022-01-08": "Año nuevo, misma vida: Cardiovia, el depa de la calle Libertad en la Colonia Americana, Frijol roncando a mis pies. Quiero algo distinto.",
    "2022-04-06": "Entrevista final con Nordwerk Medical por Zoom. Priya me cae muy bien. Markus hace preguntas muy alemanas.",
    "2022-05-28": "Ayer Emiliano y yo terminamos después de siete años. Fue lo correcto. Lloré todo el camino a casa en el Macrobús.",
    "2022-09-29": "Llegué a Múnich. Mi cuarto en la WG de Belgradstraße 41, en Schwabing, es pequeño pero tiene balcón. Jakob y Leonie parecen buena onda.",
    "2022-10-04": "Primer día en Nordwerk Medical, en Garching. Nadie habla en el elevador. Tom me explicó el Mensa.",
    "2022-12-24": "Primera Navidad lejos de casa. Cenamos raclette con la WG y videollamada con todos en casa de la abuela.",
    "2023-01-15": "Ayer en Boulderwelt Ost conocí a un tal Lukas, fisioterapeuta, me enseñó a caer sin romperme nada. Muy alto. Muy güero.",
    "2023-05-21": "Viena con Lukas por mi cumple. Sachertorte, el Prater, y me dijo que me quiere, en español, con un acento horrible.",
    "2023-07-08": "Mamá y papá llegaron a Múnich. Papá ya se peleó con la máquina de boletos del MVG.",
    "2023-10-08": "Comida con los papás de Lukas en Rosenheim. Sabine hizo Zwetschgenkuchen y Klaus me enseñó su colección de trenes.",
    "2023-12-24": "Nochebuena en Guadalajara con Lukas. Se comió tres platos de pozole y la abuela lo adoptó.",
    "2024-02-03": "Nos mudamos! Untere Weidenstraße 12, en Giesing, con Lukas. Klaus trajo el remolque y Sabine sándwiches para todos.",
    "2024-04-13": "Brezel llegó a casa. Se escondió detrás del sofá seis horas y luego se durmió en el radiador.",
    "2024-06-08": "Barcelona con Xime. She took me to a vermut place in Gràcia, I'm in love with this city.",
    "2024-07-06": "Inauguración de Physio Brandt en Haidhausen. Lukas estaba nerviosísimo, Sabine lloró, vino medio Rosenheim.",
    "2024-07-18": "Frijol. Trece años conmigo. Lloré en el baño del trabajo.",
    "2024-08-25": "Fin de semana en el Gardasee con Lukas en la camper de Flo. Brezel se quedó con Sabine.",
}

CV = """# Daniela Castillo Reyes

Validation engineer (medical devices). Born 19 May 1995 in Guadalajara, Jalisco, Mexico.

## Experience
- Nordwerk Medical, Garching (Munich): Validation Engineer (October 2022), Senior Validation Engineer (from April 2024)
- Cardiovia, Guadalajara: Quality Engineer (2018-2022)

## Education
- BSc Biomedical Engineering, Universidad de Guadalajara, 2017

## Languages
Spanish (native), English (C1), German (B1)

## Interests
Bouldering, cooking, long train journeys
"""

LEASE = """Mietvertrag für Wohnraum
Vermieterin: Hildegard Huber, Tegernseer Landstraße 88, 81539 München
Mieter: Lukas Brandt und Daniela Castillo Reyes
Mietobjekt: Untere Weidenstraße 12, 3. OG links, 81543 München, drei Zimmer, Küche, Bad, Balkon
Mietbeginn: 1. Februar 2024; das Mietverhältnis läuft auf unbestimmte Zeit
Miete: Die Nettokaltmiete beträgt monatlich 1.390,00 €; dazu eine Vorauszahlung auf die Betriebskosten von 240,00 €
Kaution: drei Nettokaltmieten, 4.170,00 €
Tierhaltung: Die Haltung einer Katze ist gestattet; Hunde nur mit schriftlicher Zustimmung der Vermieterin
"""

# sender: (address, subject, zone); "Newsletter" draws its subject from NEWSLETTERS
MAIL = {
    "Embajada de Alemania": ("visa@mexiko.diplo.example", "Ihr Visumantrag / Su solicitud de visa", GDL),
    "Lufthansa": ("booking@lufthansa.example", "Your booking confirmation", MUC),
    "Jakob Weber": ("jakob.weber@posteo.example", "Zimmer Belgradstraße", MUC),
    "Landeshauptstadt München KVR": ("buergerbuero@muenchen.example", "Bestätigung Ihrer Anmeldung", MUC),
    "Münchner Volkshochschule": ("anmeldung@mvhs.example", "Anmeldebestätigung Kurs", MUC),
    "telc gGmbH": ("ergebnisse@telc.example", "Ihr Prüfungsergebnis", MUC),
    "Vueling": ("noreply@vueling.example", "Your Vueling booking", MUC),
    "Aeroméxico": ("reservaciones@aeromexico.example", "Confirmación de tu reservación", GDL),
    "Ausländerbehörde München": ("auslaenderbehoerde@muenchen.example", "Niederlassungserlaubnis", MUC),
}
MBOX = [
    ("2022-08-16 10:00", "Embajada de Alemania",
     "Ihr Visum (Blaue Karte EU) ist erteilt und kann ab dem 22. August in der Visastelle abgeholt werden. "
     "Su visa (Tarjeta Azul UE) fue aprobada"),
    ("2022-09-01 18:30", "Lufthansa",
     "Booking code K7XQ2M: Guadalajara - Mexico City - Munich, 28 September 2022, departure 07:15, one checked bag of 23 kg"),
    ("2022-09-10 11:20", "Jakob Weber",
     "Hi Daniela, the room in Belgradstraße 41 is yours from 1 October. Rent is 780 € warm, deposit 1,500 €. "
     "Leonie and I are looking forward to it, we'll leave the key with the neighbour if your flight is late"),
    ("2022-10-18 08:00", "Landeshauptstadt München KVR",
     "Sie sind seit dem 17.10.2022 mit Hauptwohnsitz in der Belgradstraße 41, 80796 München gemeldet. "
     "Ihre Steuer-ID erhalten Sie per Post"),
    ("2023-04-03 09:30", "Münchner Volkshochschule",
     "Anmeldebestätigung: Deutsch B1.1, montags und mittwochs 18:00-20:15, ab 17. April 2023, Einsteinstraße 28. "
     "Kursgebühr: 289 €"),
    ("2023-11-22 15:00", "telc gGmbH",
     "Ergebnis Ihrer Prüfung vom 11.11.2023: telc Deutsch B1: bestanden. Gesamtnote: gut. "
     "Das Zertifikat wird Ihnen per Post zugeschickt"),
    ("2023-12-02 20:10", "Lufthansa",
     "Booking code R4PL9T: Munich - Mexico City - Guadalajara, 19 December 2023, return 6 January 2024, 2 passengers"),
    ("2024-05-20 21:00", "Vueling",
     "Booking code VB3MZA: Munich - Barcelona, 7 June 2024, return 10 June 2024"),
    ("2024-08-28 22:30", "Aeroméxico",
     "Clave de reservación AM8JQH: Múnich - Ciudad de México - Guadalajara, 9 de octubre de 2024, 2 pasajeros"),
    ("2024-09-25 10:00", "Ausländerbehörde München",
     "Ihr Antrag auf Erteilung einer Niederlassungserlaubnis wurde genehmigt. Der elektronische Aufenthaltstitel "
     "kann in etwa vier Wochen abgeholt werden"),
]
NEWSLETTERS = ["Tu estado de cuenta BBVA", "Liverpool: ofertas de la semana", "N26: your monthly statement",
               "Lidl Plus: Angebote dieser Woche", "MVG: Ihr Deutschlandticket", "Spotify: new releases for you",
               "Mercado Libre: tu paquete va en camino", "Decathlon: Kletterschuhe im Sale",
               "Duolingo: you're on a streak!"]

EML = [
    ("Offer - Nordwerk Medical.eml", "Anja Hoffmann", "talent@nordwerk-medical.example",
     "Your offer from Nordwerk Medical", "2022-04-20 17:10", MUC,
     "Dear Daniela,\n\nwe are pleased to offer you the position of Validation Engineer in our Catheter Systems "
     "team in Garching near Munich, starting on 1 October 2022. The annual gross salary is €58,000, with "
     "relocation support of up to €5,000 and help with your EU Blue Card application.\n\n"
     "Please let us know your decision by 6 May.\n\nBest regards,\nAnja Hoffmann\nTalent Acquisition"),
    ("Schutzvertrag Brezel.eml", "Tierheim München", "vermittlung@tierheim-muenchen.example",
     "Ihr Schutzvertrag", "2024-04-10 14:30", MUC,
     "Liebe Frau Castillo Reyes,\n\nanbei der Schutzvertrag für Brezel (Europäisch Kurzhaar, weiblich, etwa "
     "zwei Jahre alt; im Tierheim hieß sie Wolke). Sie ist geimpft, gechippt und kastriert. "
     "Schutzgebühr: 110 €, zahlbar bei Abholung am Samstag.\n\nViele Grüße aus Riem\nIhr Tierheim-Team"),
]

# (start, end or None for all day, summary, location, rule, zone)
EVENTS = [
    ("2022-02-15 17:00", "2022-02-15 17:45", "Dentista - Dra. Alcaraz", "Av. Chapultepec 120, Guadalajara", "", "America/Mexico_City"),
    ("2022-05-03 19:00", "2022-05-03 20:30", "Clase de alemán A1 (online)", "Zoom", "FREQ=WEEKLY;BYDAY=TU,TH;COUNT=32", "America/Mexico_City"),
    ("2022-08-09 09:00", "2022-08-09 10:00", "Cita visa - Embajada de Alemania", "Horacio 1506, Polanco, CDMX", "", "America/Mexico_City"),
    ("2022-10-17 07:30", "2022-10-17 09:00", "Anmeldung KVR", "Ruppertstraße 19, München", "", "Europe/Berlin"),
    ("2023-04-17 18:00", "2023-04-17 20:15", "Deutsch B1.1 (MVHS)", "Einsteinstraße 28, München", "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=30", "Europe/Berlin"),
    ("2023-06-13 08:15", "2023-06-13 09:00", "Zahnarzt Dr. Öztürk", "Leopoldstraße 58, München", "", "Europe/Berlin"),
    ("2023-06-17", None, "Cumpleaños Abuela Chela 🎂", "", "FREQ=YEARLY", ""),
    ("2023-09-23 11:00", "2023-09-23 18:00", "Team Wiesn 🍺", "Schottenhamel, Theresienwiese", "", "Europe/Berlin"),
    ("2023-11-11 09:00", "2023-11-11 13:00", "telc B1 Prüfung", "Sendlinger Straße 7, München", "", "Europe/Berlin"),
    ("2024-01-16 18:00", "2024-01-16 18:30", "Zahnarzt Dr. Öztürk - Kontrolle", "Leopoldstraße 58, München", "", "Europe/Berlin"),
    ("2024-07-06 17:00", "2024-07-06 21:00", "Eröffnung Physio Brandt 🎉", "Wörthstraße 21, München-Haidhausen", "", "Europe/Berlin"),
    ("2024-09-24 09:30", "2024-09-24 10:30", "Ausländerbehörde - Niederlassungserlaubnis", "Ruppertstraße 19, München", "", "Europe/Berlin"),
    ("2024-10-12", None, "Boda Regi & Pablo", "Tequila, Jalisco", "", ""),
    ("2025-03-15", None, "Boda Santi & Fer", "Hacienda El Carmen, Jalisco", "", ""),
]

CHATTER = {
    "fam": ["ok", "sí", "no", "jajaja", "jajajaja", "😂", "❤️", "🙏", "¿ya comiste?", "sí, ya", "¿cómo sigues?",
            "bien, cansada", "mucho trabajo", "ahorita te marco", "ya llegué", "cuídate mucho", "te quiero",
            "bendiciones mija", "qué frío", "allá está haciendo calor?", "aquí llueve bien feo", "mándame foto",
            "qué bonito", "ya me voy a dormir", "hablamos el domingo", "¿a qué hora?", "mañana te digo",
            "¿y tu papá?", "aquí en la casa", "qué bueno", "ándale", "sale", "nada, aquí", "buenas noches",
            "buenos días", "¿ya te fuiste al trabajo?", "<Multimedia omitido>", "ay no",
            "no te preocupes", "gracias", "te extraño", "ya vi", "luego te cuento", "¿qué hiciste hoy?"],
    "friends": ["jajaja", "jajajaja no puede ser", "neta?", "no manches", "qué oso", "girl, same", "literal",
                "me muero", "plan para el finde?", "sorry, estaba en el gym", "oki", "lol", "te extraño amiga",
                "mándenme fotos", "ya vieron esto?", "nooo", "ay qué lindo", "happy for you!!", "qué padre",
                "ok pero why", "wey", "sí voy", "no puedo, trabajo", "<Multimedia omitido>", "😂😂", "🙌", "va",
                "a qué hora?", "ya llegué", "omg", "amiga", "cuéntame todo", "obvio", "so proud"],
    "de": ["ok", "Guten Morgen!", "alles gut?", "Danke dir!", "Bis Sonntag", "Liebe Grüße", "Schönes Wochenende!",
           "Wie geht's euch?", "super", "gerne", "😊", "Gute Nacht", "schön!", "Grüß Lukas", "ja klar",
           "Wir freuen uns", "Danke, gleichfalls", "Das Wetter ist furchtbar", "Bis bald", "👍"],
    "lukas": ["na?", "Feierabend!", "on my way", "Servus", "I'm at the gym", "Boulderwelt tonight?",
              "Was essen wir heute?", "pizza?", "tacos?", "passt", "love you", "miss you", "hab dich lieb",
              "ich komme später, sorry", "buying groceries, need anything?", "Hafermilch", "😘", "ok", "haha",
              "gute Nacht", "te quiero", "how was work?", "long day", "tell me later", "sure", "U-Bahn is late again",
              "typical MVG", "Bussi", "wait what", "schau mal", "so cute", "jajaja", "dinner at 8?", "ja", "nein"],
    "en": ["ok", "haha", "lol", "sounds good", "see you later", "on my way", "running late sorry", "👍", "yes",
           "no", "what time?", "perfect", "so tired today", "same", "call you later", "wait what", "omg", "thx",
           "coffee?", "can't, meeting", "how was your day?", "tell me later"],
    "es": ["vale", "jajaja", "qué tal?", "bien, y tú?", "chévere", "un abrazo", "ya voy", "qué frío", "mañana?",
           "dale", "parce", "me muero de sueño", "besos", "¿café el miércoles?", "ay no", "uff"],
    "work": ["thanks!", "on it", "👍", "can you review the protocol?", "meeting moved to 14:00", "lunch?",
             "Mensa or Thai?", "sure", "done", "coffee in 5", "anyone seen the torque tester?", "sorry, in a call",
             "FYI the clean room is booked until 3", "ok", "👀", "+1", "Servus", "weekend!", "uploaded to Veeva",
             "deviation report is in", "who has the key for lab 2?", "running 5 min late", "great job everyone",
             "the S-Bahn strikes again", "Mahlzeit", "happy Friday"],
}

# source: (people other than the owner, chatter lists, mean days between exchanges, first day or None)
SOURCES = {
    "mama": (["Mamá"], ["fam"], 3, None),
    "abuela": (["Abuela"], ["fam"], 9, None),
    "bro": (["Bro"], ["fam", "friends"], 6, None),
    "group": (["Regi", "Caro Ibarra", "Xime 🌻"], ["friends"], 4, None),
    "sabine": (["Sabine (Lukas Mama)"], ["de"], 10, "2023-10-09 19:00"),
    "lukas": (["Lukas Brandt"], ["lukas"], 2, "2023-01-15 11:00"),
    "marisol": (["Marisol Gómez"], ["es", "es", "en", "de"], 5, "2023-04-19 20:00"),
    "validation": (["Priya Raman", "Tom Becker", "Stefan Kraus", "Mei Lin"], ["work"], 4, "2022-10-04 09:00"),
    "random": (["Tom Becker", "Stefan Kraus", "Mei Lin", "Priya Raman"], ["work"], 8, "2022-10-04 12:00"),
    "tomdm": (["Tom Becker"], ["work", "en"], 12, "2022-10-05 10:00"),
}


def _time(stamp: str) -> datetime:
    return datetime.strptime(stamp, "%Y-%m-%d %H:%M")


def _messages(source: str, rng: random.Random, end: datetime = END) -> list[tuple[datetime, str, str]]:
    """The source's facts among its small talk, in time order."""
    people, lists, every, first = SOURCES[source]
    facts = [(_time(t), who, text) for s, t, who, text in FACTS if s == source]
    out = list(facts)
    day = _time(first) if first else START
    taken = {t for t, _, _ in facts}
    while day < end:
        day += timedelta(days=rng.randint(1, 2 * every - 1))
        at = day.replace(hour=rng.randint(7, 22), minute=rng.randint(0, 59))
        for i in range(rng.randint(2, 6)):
            who = OWNER if i % 2 else rng.choice(people)
            when = at + timedelta(minutes=i * rng.randint(1, 6))
            if when not in taken and when < end:
                taken.add(when)
                out.append((when, who, rng.choice(CHATTER[rng.choice(lists)])))
    return sorted(out)


# WhatsApp's end-to-end notice: the Android exports' phone is set to Spanish (Mexico), the iOS exports' to German
NOTICE_ES = ("Los mensajes y las llamadas están cifrados de extremo a extremo. Nadie fuera de este chat, ni siquiera "
             "WhatsApp, puede leerlos ni escucharlos. Toca para obtener más información.")
NOTICE_DE = ("Nachrichten und Anrufe sind Ende-zu-Ende-verschlüsselt. Niemand außerhalb dieses Chats kann sie lesen "
             "oder anhören, nicht einmal WhatsApp.")

SLACK_USERS = {  # id: (name, real name, display name)
    "U03DCASTILLO": ("daniela.castillo", "Daniela Castillo", "Dani"),
    "U01PRAMAN": ("priya.raman", "Priya Raman", "Priya"),
    "U01TBECKER": ("tom.becker", "Tom Becker", "Tom"),
    "U02SKRAUS": ("stefan.kraus", "Stefan Kraus", "Stefan"),
    "U02MLIN": ("mei.lin", "Mei Lin", "Mei"),
}
SLACK_CHANNELS = [exports.SlackChannel("C01VALID", "validation-team", "Catheter systems validation", ""),
                  exports.SlackChannel("C01RANDOM", "random", "", "Non-work banter and water cooler conversation")]


def _ios_seconds(t: datetime) -> int:
    """Seconds for a stamp written to the minute, the same every run."""
    return (t.minute * 7 + t.hour) % 60


def write(archive: Path = ARCHIVE) -> None:
    rng = random.Random(20261201)
    if archive.is_dir():  # a day file of an older Slack export would otherwise stay behind
        shutil.rmtree(archive)
    archive.mkdir(parents=True)
    android = {"stamp": exports.android_stamp_es_mx, "notice": (START - timedelta(days=2), NOTICE_ES)}
    exports.whatsapp_android(archive / "Chat de WhatsApp con Mamá.txt", _messages("mama", rng), **android)
    exports.whatsapp_android(archive / "Chat de WhatsApp con Bro.txt", _messages("bro", rng), **android)
    created = START - timedelta(days=1)
    exports.whatsapp_android(archive / "Chat de WhatsApp con Boda Regi & Pablo 💒.txt", _messages("group", rng),
                             **android, events=[
                                 (created, "Regi creó el grupo “Las de la prepa 🎓”"),
                                 (created + timedelta(minutes=1), "Regi te añadió"),
                                 (_time("2022-10-15 13:06"), "Caro Ibarra cambió el nombre del grupo a "
                                  "“Las Tapatías por el mundo 🌎”"),
                                 (_time("2024-03-10 11:02"), "Regi cambió el nombre del grupo a “Boda Regi & Pablo 💒”")])
    for source, partner in (("abuela", "Abuela"), ("sabine", "Sabine (Lukas Mama)")):
        messages = _messages(source, rng)
        exports.whatsapp_ios(archive / f"WhatsApp Chat - {partner}.txt", messages, partner=partner, day="%d.%m.%y",
                             notice=(messages[0][0] - timedelta(minutes=5), NOTICE_DE), seconds=_ios_seconds,
                             newline="\r\n")
    exports.telegram(archive / "telegram-lukas" / "result.json", _messages("lukas", rng), owner=OWNER,
                     owner_id="user1000001", partner="Lukas Brandt", chat_id=5100042, zone=MUC)
    exports.signal(archive / "signal" / "Marisol Gómez", _messages("marisol", rng), owner=OWNER)
    slack_folders = (("validation", "validation-team"), ("random", "random"), ("tomdm", "D03TOMDANI"))
    conversations = [(source, sub, _messages(source, rng)) for source, sub in slack_folders]
    exports.slack(archive / "Nordwerk Medical Slack export Oct 2022 - Sep 2024", conversations, team="T01NORDWERK",
                  users=SLACK_USERS, channels=SLACK_CHANNELS,
                  dms=[("D03TOMDANI", datetime(2022, 10, 5, 8, tzinfo=timezone.utc), ["U03DCASTILLO", "U01TBECKER"])],
                  creator="U01PRAMAN", created=datetime(2020, 3, 2, tzinfo=timezone.utc), zone=MUC,
                  domain="nordwerk-medical.example")
    exports.zoom_transcript(archive / "GMT20220406-150000_Recording.transcript.vtt", INTERVIEW, start=2.0,
                            chars_per_second=14, pause=1.5)
    for name, sender, address, subject, stamp, zone, text in EML:
        exports.eml(archive / name, exports.Mail(_time(stamp).replace(tzinfo=zone), sender, address, TO, subject, text))
    mails = [(_time(t), who, text) for t, who, text in MBOX]
    mails += exports.newsletters(rng, START, END, NEWSLETTERS, gap=(3, 12), hour=6, minute=30)
    exports.mbox(archive / "Todo el correo.mbox", exports.addressed(mails, MAIL, to=TO, zone=MUC))
    exports.journals(archive, JOURNAL, title="Diario")
    (archive / "CV Daniela Castillo Reyes.md").write_text(CV, encoding="utf-8")
    calendar = exports.calendar([exports.Event(*e) for e in EVENTS], name="Dani", zone="Europe/Berlin",
                                stamp="20240930T120000Z",
                                uid=lambda n, e: f"{n:03d}dani{zlib.crc32(e.summary.encode()):08x}@google.com")
    (archive / "Google Calendar - Dani.ics").write_text(calendar, encoding="utf-8", newline="")
    exports.docx(archive / "Mietvertrag Untere Weidenstraße.docx", LEASE, created=datetime(2024, 1, 12))


if __name__ == "__main__":
    write()
