/**
 * A small hand-written lexicon: groups of request words that mean the same action or thing
 * ("find", "search", "look up"), and the common verbs and nouns of French, Spanish, German,
 * Portuguese and Italian requests mapped to English words. Ranking matches a request word to a
 * tool word when they share a stem, or (more weakly) a group.
 */
import { stem, type Language } from './stem.ts';
import { fold } from './tokens.ts';

/** Each line a group of English words of one meaning; the first names it. */
const GROUPS = `
search find look lookup seek query locate discover browse explore hunt
get retrieve fetch obtain show display view read check see give tell lookup
list enumerate browse show
book reserve reservation booking
buy purchase order shop
update change modify edit alter adjust amend rename reschedule
cancel delete remove erase drop discard clear revoke abort unsubscribe
create make new generate compose draft
send message email mail notify dm ping forward
play stream listen watch
stop pause halt end
convert translate transform exchange
calculate compute evaluate solve math arithmetic
add sum plus total addition
subtract minus difference deduct
multiply times product double triple
divide quotient ratio halve split
weather temperature rain sunny climate snow storm wind windy cloudy humidity fog hail
forecast future upcoming coming tomorrow weekend
flight fly plane airline airfare
hotel room accommodation lodging stay
car vehicle rental
train rail railway
taxi cab ride uber
movie film cinema
song music track tune album
picture photo image pic
price cost fee rate quote cheap expensive
pay payment transfer wire remit
balance account funds
stock share ticker equity
file document doc folder directory
meeting appointment event calendar agenda schedule
reminder remind alarm alert timer
remember memorize note save store keep
switch turn toggle enable disable
light lamp bulb lighting
summarize summarise summary digest recap
count tally
recipe cook dish meal
restaurant diner eatery bistro
news headline article
direction route navigate map directions
distance far away
translate translation
word words
contact phone call dial
task todo chore
email inbox mail
time clock hour
date day calendar
currency money dollar euro yen pound franc peso rupee cash exchange
percent percentage
product item goods article
heating heater thermostat warm
vacuum hoover
direction route itinerary commute
job career position vacancy employment
doctor physician gp clinic
appointment booking slot
lyrics words
nearby near close around
traffic congestion accident jam
unit measure length mass weight volume feet foot inch centimeter centimetre meter metre kilometer mile kilogram kg gram pound ounce liter litre gallon celsius fahrenheit degree
spreadsheet sheet workbook
delay delayed late status
stock share quote ticker market
return refund exchange send-back
cart basket trolley
salary wage earn income earnings
unlock open
unread new
nonstop direct
refundable flexible
quiet silent quietly
loan mortgage credit installment
balance money savings checking
timer countdown
gcd divisor
prime
calorie calories nutrition nutrient protein
statistics stats mean median average deviation
coordinate coordinates latitude longitude gps geocode
station airport terminal
workout exercise training swim swam swimming jog jogging cycling cycled biking biked hike hiked
`;

/**
 * A word for a kind of thing → the word for the thing: a request that names the kind ("the pdf about
 * the lease", "an internship") matches the thing's tools through its group, while the thing's word
 * does not pick the kind out of a tool's list of kinds ("the file" is no pdf).
 */
const KINDS = 'pdf=file spreadsheet=file internship=job apprenticeship=job';

/** Foreign word → English word, per language (folded). */
const FOREIGN: Readonly<Record<Exclude<Language, 'en'>, string>> = {
  fr: `enregistre=record enregistrer=record vélo=bike natation=swim nagé=swim an=year ans=year personnes=people personne=person nuits=night nuit=night billets=ticket places=seat
retard=delay statut=status panier=cart aspirateur=vacuum chauffage=heating thermostat=thermostat degrés=degree degré=degree salon=living chambre=bedroom cuisine=kitchen
prêt=loan mensualité=payment crédit=loan intérêt=interest taux=rate cours=price bourse=stock facture=bill séance=showtime séances=showtime cinéma=cinema aléatoire=shuffle
minuteur=timer chronomètre=timer agenda=calendar horaire=schedule gare=station aéroport=airport itinéraire=directions trajet=route pharmacie=pharmacy près=near proche=nearby
médecin=doctor généraliste=doctor dentiste=dentist emploi=job travail=job poste=job offre=offer nouvelles=news infos=news journal=news match=match score=score classement=standings
calories=calorie recette=recipe repas=meal dîner=dinner déjeuner=lunch eau=water verre=glass sport=workout entraînement=workout course=run courir=run marche=walk
produit=product article=item livre=book chercher=search taille=size couleur=color rendre=return retourner=return remboursement=refund échanger=exchange colis=package
suivre=track livraison=delivery abonnement=subscription mot=word définition=definition signifie=mean traduire=translate langue=language heure=time fuseau=timezone
pourcentage=percent pourboire=tip addition=bill diviser=divide partager=share dossier=folder fichier=file renommer=rename compresser=zip courriel=email mail=email
contact=contact numéro=number adresse=address coordonnées=coordinates lumières=light lumière=light allume=on éteins=off volets=shutter porte=door verrouiller=lock caméra=camera
chercher=search rechercher=search trouver=find obtenir=get afficher=show montrer=show voir=see donner=give dire=tell
réserver=book réservation=booking acheter=buy commander=order annuler=cancel supprimer=delete effacer=delete envoyer=send
créer=create ajouter=add modifier=change changer=change mettre=set jouer=play écouter=listen arrêter=stop convertir=convert
traduire=translate calculer=calculate vérifier=check ouvrir=open fermer=close allumer=on éteindre=off rappeler=remind payer=pay
météo=weather temps=weather prévisions=forecast vol=flight vols=flight avion=plane hôtel=hotel chambre=room message=message
courriel=email fichier=file calendrier=calendar réunion=meeting rendez-vous=appointment prix=price action=stock chanson=song
musique=music film=movie température=temperature lumière=light lampe=lamp alarme=alarm réveil=alarm rappel=reminder recette=recipe
restaurant=restaurant billet=ticket commande=order paiement=payment compte=account solde=balance devise=currency monnaie=currency
nouvelles=news actualités=news train=train voiture=car taxi=taxi heure=time date=date jour=day demain=tomorrow aujourd'hui=today
ville=city photo=photo image=image document=document note=note liste=list tâche=task contact=contact téléphone=phone appeler=call
adresse=address itinéraire=route carte=map distance=distance traduction=translation mot=word texte=text nombre=number somme=sum
soustraire=subtract multiplier=multiply diviser=divide résumer=summarize compter=count souvenir=remember mémoriser=remember
rembourser=refund remboursement=refund livraison=delivery colis=package suivre=track
traduis=translate traduisez=translate litre=liter litres=liter gallon=gallon gallons=gallon postuler=apply postule=apply candidature=application candidater=apply heures=time salaire=salary gagne=earn gagner=earn paroles=lyrics déverrouiller=unlock déverrouille=unlock verrouille=lock éteins=off allume=on annule=cancel envoie=send réserve=book achète=buy supprime=delete cherche=search trouve=find affiche=show montre=show calcule=calculate convertis=convert rappelle=remind paie=pay payer=pay dépenses=spending opérations=transaction
événement=event événements=event prends=take prendre=take prends-moi=take`,
  es: `registra=record registrar=record bicicleta=bike bici=bike natación=swim nadé=swim año=year años=year personas=people persona=person noches=night noche=night entradas=ticket plazas=seat
retraso=delay estado=status carrito=cart cesta=cart aspiradora=vacuum calefacción=heating termostato=thermostat grados=degree salón=living dormitorio=bedroom cocina=kitchen
préstamo=loan hipoteca=mortgage cuota=payment interés=interest tasa=rate bolsa=stock factura=bill cine=cinema sesión=showtime aleatorio=shuffle temporizador=timer
agenda=calendar horario=schedule estación=station aeropuerto=airport ruta=route indicaciones=directions farmacia=pharmacy farmacias=pharmacy cerca=near médico=doctor
dentista=dentist trabajo=job empleo=job oferta=offer ofertas=offer noticias=news partido=match resultado=score clasificación=standings calorías=calorie receta=recipe
comida=meal cena=dinner agua=water vaso=glass ejercicio=workout correr=run producto=product talla=size color=color devolver=return devolución=return reembolso=refund
paquete=package seguimiento=track envío=delivery suscripción=subscription palabra=word significa=mean idioma=language zona=timezone porcentaje=percent propina=tip
cuenta=account dividir=divide compartir=share carpeta=folder archivo=file renombrar=rename comprimir=zip correo=email contacto=contact número=number dirección=address
coordenadas=coordinates luz=light luces=light enciende=on apaga=off puerta=door cerrar=lock cámara=camera dinero=money saldo=balance ahorro=savings divisor=divisor primo=prime
buscar=search encontrar=find obtener=get mostrar=show ver=see dar=give decir=tell reservar=book reserva=booking comprar=buy
pedir=order cancelar=cancel eliminar=delete borrar=delete enviar=send mandar=send crear=create añadir=add agregar=add modificar=change
cambiar=change poner=set reproducir=play tocar=play escuchar=listen parar=stop detener=stop convertir=convert traducir=translate
calcular=calculate comprobar=check revisar=check abrir=open cerrar=close encender=on apagar=off recordar=remind pagar=pay
clima=weather tiempo=weather pronóstico=forecast vuelo=flight vuelos=flight avión=plane hotel=hotel habitación=room mensaje=message
correo=email archivo=file fichero=file calendario=calendar reunión=meeting cita=appointment precio=price acción=stock acciones=stock
canción=song música=music película=movie temperatura=temperature luz=light luces=light lámpara=lamp alarma=alarm recordatorio=reminder
receta=recipe restaurante=restaurant billete=ticket boleto=ticket entrada=ticket pedido=order pago=payment cuenta=account saldo=balance
moneda=currency divisa=currency noticias=news tren=train coche=car carro=car taxi=taxi hora=time fecha=date día=day mañana=tomorrow
hoy=today ciudad=city foto=photo imagen=image documento=document nota=note lista=list tarea=task contacto=contact teléfono=phone
llamar=call dirección=address ruta=route mapa=map distancia=distance traducción=translation palabra=word texto=text número=number
suma=sum sumar=add restar=subtract multiplicar=multiply dividir=divide resumir=summarize contar=count reembolso=refund envío=shipping
paquete=package rastrear=track
avisos=alert aviso=alert alerta=alert alertas=alert meteorológicos=weather meteorológico=weather meteorológicas=weather envíale=send envía=send envia=send manda=send mándale=send recuérdame=remind recuerdame=remind horas=time salario=salary sueldo=salary letra=lyrics desbloquea=unlock bloquea=lock movimientos=transaction gastos=spending traduce=translate tradúceme=translate busca=search encuentra=find muestra=show enséñame=show calcula=calculate convierte=convert paga=pay reserva=book compra=buy borra=delete elimina=delete cancela=cancel enciende=on apaga=off pon=set resultado=score marcador=score
evento=event eventos=event`,
  de: `registriere=record eintragen=record trage=record fahrrad=bike radfahren=cycling geschwommen=swim schwimmen=swim jahr=year jahre=year jahren=year personen=people person=person nächte=night nacht=night karten=ticket plätze=seat
verspätung=delay status=status warenkorb=cart korb=cart staubsauger=vacuum heizung=heating thermostat=thermostat grad=degree wohnzimmer=living schlafzimmer=bedroom bad=bathroom
küche=kitchen kredit=loan darlehen=loan rate=payment zins=interest zinsen=interest aktienkurs=stock börse=stock rechnung=bill kino=cinema vorstellung=showtime zufällig=shuffle
zufallswiedergabe=shuffle timer=timer stoppuhr=timer kalender=calendar termine=appointment bahnhof=station hauptbahnhof=station flughafen=airport weg=directions route=route
apotheke=pharmacy nähe=near arzt=doctor ärztin=doctor zahnarzt=dentist job=job stelle=job stellen=job arbeit=job nachrichten=news spiel=match ergebnis=score tabelle=standings
kalorien=calorie rezept=recipe essen=meal abendessen=dinner wasser=water glas=glass training=workout laufen=run produkt=product größe=size farbe=color zurückschicken=return
rücksendung=return zurückgeben=return erstattung=refund paket=package sendung=package verfolgen=track lieferung=delivery abo=subscription wort=word bedeutet=mean sprache=language
zeitzone=timezone prozent=percent trinkgeld=tip konto=account teilen=divide ordner=folder datei=file umbenennen=rename zippen=zip mail=email e-mail=email kontakt=contact
nummer=number adresse=address koordinaten=coordinates licht=light lichter=light lampe=lamp tür=door abschließen=lock kamera=camera geld=money kontostand=balance primzahl=prime
teiler=divisor bestellung=order bestellen=order
suchen=search finden=find holen=get abrufen=get zeigen=show anzeigen=show sehen=see geben=give sagen=tell buchen=book
reservieren=book buchung=booking kaufen=buy bestellen=order stornieren=cancel absagen=cancel löschen=delete entfernen=remove
senden=send schicken=send erstellen=create hinzufügen=add ändern=change setzen=set abspielen=play spielen=play hören=listen
stoppen=stop anhalten=stop umrechnen=convert konvertieren=convert übersetzen=translate berechnen=calculate rechnen=calculate
prüfen=check öffnen=open schließen=close einschalten=on ausschalten=off erinnern=remind bezahlen=pay zahlen=pay wetter=weather
vorhersage=forecast wettervorhersage=forecast flug=flight flüge=flight flugzeug=plane hotel=hotel zimmer=room nachricht=message
mail=email datei=file kalender=calendar besprechung=meeting termin=appointment preis=price aktie=stock aktien=stock lied=song
musik=music film=movie temperatur=temperature licht=light lampe=lamp wecker=alarm alarm=alarm erinnerung=reminder rezept=recipe
restaurant=restaurant ticket=ticket fahrkarte=ticket bestellung=order zahlung=payment konto=account kontostand=balance
währung=currency nachrichten=news zug=train auto=car taxi=taxi uhrzeit=time zeit=time datum=date tag=day morgen=tomorrow
heute=today stadt=city foto=photo bild=image dokument=document notiz=note liste=list aufgabe=task kontakt=contact telefon=phone
anrufen=call adresse=address route=route karte=map entfernung=distance übersetzung=translation wort=word wörter=words text=text
zahl=number summe=sum addieren=add subtrahieren=subtract multiplizieren=multiply dividieren=divide teilen=divide
zusammenfassen=summarize zählen=count merken=remember rückerstattung=refund lieferung=delivery paket=package verfolgen=track
spät=time uhr=time umsätze=transaction umsatz=transaction buchungen=transaction ausgaben=spending verriegle=lock verriegeln=lock verriegel=lock entriegeln=unlock entriegle=unlock aufschließen=unlock ungelesene=unread ungelesen=unread ungelesenen=unread e-mails=email mails=email benenne=rename benennen=rename verschiebe=move verschieben=move verbindung=connection verbindungen=connection wegbeschreibung=directions gehalt=salary verdient=earn verdienen=earn songtext=lyrics liedtext=lyrics tür=door türen=door such=search suche=search zeig=show zeige=show rechne=calculate berechne=calculate buche=book kaufe=buy lösche=delete storniere=cancel schicke=send sende=send erinnere=remind bezahle=pay zahle=pay spiele=play stell=set stelle=set schalte=switch
veranstaltung=event ereignis=event`,
  pt: `registra=record registrar=record registre=record bicicleta=bike natação=swim nadei=swim ano=year anos=year pessoas=people pessoa=person noites=night noite=night bilhetes=ticket lugares=seat
atraso=delay estado=status carrinho=cart cesto=cart aspirador=vacuum aquecimento=heating termostato=thermostat graus=degree sala=living quarto=bedroom cozinha=kitchen
empréstimo=loan hipoteca=mortgage prestação=payment juros=interest taxa=rate bolsa=stock fatura=bill cinema=cinema sessão=showtime aleatório=shuffle temporizador=timer
agenda=calendar horário=schedule estação=station aeroporto=airport rota=route direções=directions chegar=directions farmácia=pharmacy perto=near médico=doctor dentista=dentist
emprego=job trabalho=job vaga=job vagas=job notícias=news jogo=match resultado=score classificação=standings calorias=calorie receita=recipe refeição=meal refeições=meal
jantar=dinner água=water copo=glass treino=workout correr=run produto=product tamanho=size cor=color devolver=return devolução=return reembolso=refund pacote=package
encomenda=order rastrear=track entrega=delivery assinatura=subscription palavra=word significa=mean idioma=language fuso=timezone porcentagem=percent gorjeta=tip conta=account
dividir=divide partilhar=share compartilhar=share pasta=folder arquivo=file renomear=rename comprimir=zip email=email contato=contact número=number endereço=address
coordenadas=coordinates luz=light luzes=light acende=on apaga=off porta=door trancar=lock câmera=camera dinheiro=money saldo=balance poupança=savings primo=prime
procurar=search pesquisar=search buscar=search encontrar=find obter=get mostrar=show ver=see dar=give dizer=tell reservar=book
reserva=booking comprar=buy pedir=order encomendar=order cancelar=cancel excluir=delete apagar=delete remover=remove enviar=send
mandar=send criar=create adicionar=add modificar=change mudar=change alterar=change tocar=play reproduzir=play ouvir=listen
parar=stop converter=convert traduzir=translate calcular=calculate verificar=check abrir=open fechar=close ligar=on desligar=off
lembrar=remind pagar=pay tempo=weather clima=weather previsão=forecast voo=flight voos=flight avião=plane hotel=hotel quarto=room
mensagem=message correio=email arquivo=file ficheiro=file calendário=calendar reunião=meeting consulta=appointment preço=price
ação=stock ações=stock canção=song música=music filme=movie temperatura=temperature luz=light luzes=light lâmpada=lamp
alarme=alarm despertador=alarm lembrete=reminder receita=recipe restaurante=restaurant bilhete=ticket ingresso=ticket pedido=order
pagamento=payment conta=account saldo=balance moeda=currency notícias=news trem=train comboio=train carro=car táxi=taxi hora=time
data=date dia=day amanhã=tomorrow hoje=today cidade=city foto=photo imagem=image documento=document nota=note lista=list
tarefa=task contato=contact telefone=phone endereço=address rota=route mapa=map distância=distance tradução=translation
palavra=word texto=text número=number soma=sum somar=add subtrair=subtract multiplicar=multiply dividir=divide resumir=summarize
contar=count reembolso=refund entrega=delivery pacote=package rastrear=track
horas=time hora=time destranca=unlock destrancar=unlock tranca=lock trancar=lock salário=salary letra=lyrics porta=door luzes=light luz=light acende=on acender=on apaga=off apagar=off traduz=translate traduzir=translate procura=search procurar=search encontra=find mostra=show mostrar=show calcula=calculate converte=convert reserva=book compra=buy apaga=delete cancela=cancel envia=send manda=send lembra=remind paga=pay põe=set coloca=set toca=play
evento=event eventos=event`,
  it: `registra=record registrare=record bicicletta=bike bici=bike nuoto=swim nuotato=swim anno=year anni=year persone=people persona=person notti=night notte=night biglietti=ticket posti=seat
ritardo=delay stato=status carrello=cart aspirapolvere=vacuum riscaldamento=heating termostato=thermostat gradi=degree soggiorno=living camera=bedroom cucina=kitchen
prestito=loan mutuo=mortgage rata=payment interesse=interest tasso=rate borsa=stock bolletta=bill fattura=bill cinema=cinema spettacolo=showtime casuale=shuffle timer=timer
agenda=calendar orario=schedule stazione=station aeroporto=airport percorso=route indicazioni=directions farmacia=pharmacy vicino=near medico=doctor dentista=dentist
lavoro=job offerta=offer notizie=news partita=match risultato=score classifica=standings calorie=calorie ricetta=recipe pasto=meal cena=dinner acqua=water bicchiere=glass
allenamento=workout correre=run prodotto=product taglia=size colore=color restituire=return reso=return rimborso=refund pacco=package tracciare=track consegna=delivery
abbonamento=subscription parola=word significa=mean lingua=language fuso=timezone percentuale=percent mancia=tip conto=account dividere=divide condividere=share
cartella=folder file=file rinominare=rename comprimere=zip email=email contatto=contact numero=number indirizzo=address coordinate=coordinates luce=light luci=light
accendi=on spegni=off porta=door chiudere=lock telecamera=camera soldi=money saldo=balance risparmi=savings primo=prime ristorante=restaurant ristoranti=restaurant ore=time
cercare=search trovare=find ottenere=get mostrare=show vedere=see dare=give dire=tell prenotare=book prenotazione=booking
comprare=buy acquistare=buy ordinare=order annullare=cancel cancellare=delete eliminare=delete inviare=send mandare=send creare=create
aggiungere=add modificare=change cambiare=change impostare=set riprodurre=play suonare=play ascoltare=listen fermare=stop
convertire=convert tradurre=translate calcolare=calculate controllare=check verificare=check aprire=open chiudere=close accendere=on
spegnere=off ricordare=remind pagare=pay meteo=weather tempo=weather previsioni=forecast volo=flight voli=flight aereo=plane
albergo=hotel hotel=hotel camera=room messaggio=message posta=email file=file calendario=calendar riunione=meeting
appuntamento=appointment prezzo=price azione=stock azioni=stock canzone=song musica=music film=movie temperatura=temperature
luce=light luci=light lampada=lamp sveglia=alarm allarme=alarm promemoria=reminder ricetta=recipe ristorante=restaurant
biglietto=ticket ordine=order pagamento=payment conto=account saldo=balance valuta=currency notizie=news treno=train macchina=car
auto=car taxi=taxi ora=time data=date giorno=day domani=tomorrow oggi=today città=city foto=photo immagine=image documento=document
nota=note lista=list elenco=list compito=task contatto=contact telefono=phone chiamare=call indirizzo=address percorso=route
mappa=map distanza=distance traduzione=translation parola=word testo=text numero=number somma=sum sommare=add sottrarre=subtract
moltiplicare=multiply dividere=divide riassumere=summarize contare=count rimborso=refund consegna=delivery pacco=package
tracciare=track
ore=time ora=time spegni=off spegnere=off accendi=on accendere=on bagno=bathroom luci=light luce=light cento=percent percentuale=percent calcola=calculate calcolare=calculate serratura=lock porta=door chiudi=lock apri=unlock traduci=translate tradurre=translate stipendio=salary guadagna=earn cerca=search trova=find mostra=show mostrami=show prenota=book compra=buy cancella=delete annulla=cancel invia=send manda=send ricordami=remind ricorda=remind paga=pay pagare=pay metti=set imposta=set riproduci=play suona=play
evento=event eventi=event`,
};

interface Lexicon {
  /** English stem → the groups it belongs to (by the stem of each group's first word). */
  readonly groupsOf: ReadonlyMap<string, readonly string[]>;
  /** English stem of a kind → the groups of the thing it is a kind of. */
  readonly kindsOf: ReadonlyMap<string, readonly string[]>;
  /** Per language: stem of the foreign word → stem of the English word. */
  readonly foreignOf: ReadonlyMap<Language, ReadonlyMap<string, string>>;
}

let built: Lexicon | undefined;

/**
 * The lexicon's tables, stemmed on first use rather than when the module loads: stemming its
 * words in six languages took about 50 ms of every start, paid by processes that never plan
 * (a retrieval, `cugar verify`, a Worker answering a read).
 */
function lexicon(): Lexicon {
  if (built) return built;
  const groupsOf = new Map<string, string[]>();
  for (const line of GROUPS.trim().split('\n')) {
    const words = line.trim().split(/\s+/).map(fold);
    const name = stem(words[0]!);
    for (const word of words) {
      const key = stem(word);
      const list = groupsOf.get(key) ?? [];
      if (!list.includes(name)) list.push(name);
      groupsOf.set(key, list);
    }
  }
  const kindsOf = new Map<string, readonly string[]>();
  for (const pair of KINDS.split(' ')) {
    const [kind, thing] = pair.split('=') as [string, string];
    kindsOf.set(stem(kind), groupsOf.get(stem(thing)) ?? []);
  }
  const foreignOf = new Map<Language, Map<string, string>>();
  for (const [language, text] of Object.entries(FOREIGN) as Array<[Exclude<Language, 'en'>, string]>) {
    const map = new Map<string, string>();
    for (const pair of text.split(/\s+/)) {
      const [word, english] = pair.split('=') as [string, string];
      const folded = fold(word);
      map.set(folded, stem(fold(english)));
      map.set(stem(folded, language), stem(fold(english)));
    }
    foreignOf.set(language, map);
  }
  built = { groupsOf, kindsOf, foreignOf };
  return built;
}

/** The English stem a word of `language` translates to, if the lexicon knows it. */
export function translate(word: string, language: Language): string | undefined {
  if (language === 'en') return undefined;
  const map = lexicon().foreignOf.get(language)!;
  return map.get(word) ?? map.get(stem(word, language));
}

/** The English stem a word of any of the lexicon's languages translates to. */
export function translateAny(word: string): string | undefined {
  const known = anyLanguage.get(word);
  if (known !== undefined) return known === '' ? undefined : known;
  let found: string | undefined;
  for (const language of lexicon().foreignOf.keys()) if ((found = translate(word, language)) !== undefined) break;
  if (anyLanguage.size >= 20_000) anyLanguage.clear();
  anyLanguage.set(word, found ?? '');
  return found;
}

/** Words already looked up in every language (memoised, bounded); '' for none. */
const anyLanguage = new Map<string, string>();

/** The groups (named by stems) an English stem belongs to; empty when none. */
export function groups(englishStem: string): readonly string[] {
  return lexicon().groupsOf.get(englishStem) ?? [];
}

/** The groups of what an English stem names a kind of ("pdf" → the file group); empty when none. */
export function kindGroups(englishStem: string): readonly string[] {
  return lexicon().kindsOf.get(englishStem) ?? [];
}
