"""Generated topic files shaped like the shipped bank, for the bank-loading benchmark.

Why this shape: loading cost follows bytes and nodes, so the generated questions match the shipped
bank's averages (stems ~290 characters per language, explanations ~420, four options of ~30
characters, 43% with a fenced code block, 15% with a table, 75% with a verify snippet, both
languages everywhere), about 2.5 KB of YAML per question. Every file passes bot.bank validation.
"""

from __future__ import annotations

import random
from pathlib import Path

EN_SENTENCES = (
    "The validation loss stops improving after the third epoch while the training loss keeps falling.",
    "A feature computed over the whole dataset leaks information from the validation rows.",
    "The batch is split across eight workers and the gradients are averaged after each step.",
    "Mixed precision halves the memory of activations but the optimizer state stays in float32.",
    "The learning rate warms up linearly for a thousand steps and then follows a cosine decay.",
    "Each worker reads its own shard of the data, so the effective batch grows with the world size.",
    "The model is evaluated with stratified folds because the positive class is rare.",
    "Target encoding uses the mean outcome per category, computed inside each training fold only.",
    "Gradient clipping bounds the global norm, which keeps one bad batch from derailing the run.",
    "The profiler shows the GPU idle while the data loader decodes images on a single process.",
    "Which choice explains the numbers best, and what would you change first?",
    "Assume the cluster is otherwise idle and every node has the same hardware.",
)
TR_SENTENCES = (
    "Doğrulama kaybı üçüncü epoch'tan sonra iyileşmeyi bırakıyor, eğitim kaybı ise düşmeye devam ediyor.",
    "Tüm veri seti üzerinden hesaplanan bir özellik, doğrulama satırlarından bilgi sızdırıyor.",
    "Batch sekiz işçiye bölünüyor ve gradyanlar her adımdan sonra ortalanıyor.",
    "Karışık hassasiyet aktivasyon belleğini yarıya indirir ama optimizer durumu float32 kalır.",
    "Öğrenme oranı bin adım boyunca doğrusal olarak ısınıyor, ardından kosinüs ile azalıyor.",
    "Her işçi verinin kendi parçasını okuyor, bu yüzden etkin batch dünya boyutuyla büyüyor.",
    "Pozitif sınıf nadir olduğu için model katmanlı katlarla değerlendiriliyor.",
    "Hedef kodlama her kategori için ortalama sonucu yalnızca eğitim katı içinde hesaplıyor.",
    "Gradyan kırpma küresel normu sınırlar; tek bir kötü batch eğitimi raydan çıkaramaz.",
    "Profilleyici, veri yükleyici görüntüleri tek süreçte çözerken GPU'nun boşta kaldığını gösteriyor.",
    "Sayıları en iyi hangi seçenek açıklıyor ve ilk olarak neyi değiştirirsiniz?",
    "Kümenin başka iş yapmadığını ve her düğümün aynı donanıma sahip olduğunu varsayın.",
)
EN_OPTIONS = ("Lower the learning rate and train longer", "Fit the encoder inside each fold",
              "Add workers to the data loader", "Keep the optimizer state in float32",
              "Increase the batch size without changing anything else", "Clip the gradient norm at 1.0",
              "Shuffle the validation set before every epoch", "Average the gradients across workers")
TR_OPTIONS = ("Öğrenme oranını düşürün ve daha uzun eğitin", "Kodlayıcıyı her katın içinde eğitin",
              "Veri yükleyiciye işçi ekleyin", "Optimizer durumunu float32 tutun",
              "Başka hiçbir şeyi değiştirmeden batch boyutunu artırın", "Gradyan normunu 1.0'da kırpın",
              "Doğrulama setini her epoch öncesi karıştırın", "Gradyanları işçiler arasında ortalayın")
TAGS = ("data-leakage", "optimization", "distributed", "mixed-precision", "profiling", "metrics",
        "cross-validation", "learning-rate", "data-loading", "regularization")


def _prose(rng: random.Random, sentences: tuple[str, ...], target: int) -> str:
    """Sentences until about `target` characters, wrapped into lines of a few sentences."""
    chosen: list[str] = []
    while sum(len(s) + 1 for s in chosen) < target:
        chosen.append(rng.choice(sentences))
    return "\n".join(" ".join(chosen[i:i + 2]) for i in range(0, len(chosen), 2))


def _code(rng: random.Random) -> str:
    rows, columns, axis = rng.randint(2, 6), rng.randint(2, 6), rng.randint(0, 1)
    return (f"```python\nimport numpy as np\nx = np.arange({rows * columns}).reshape({rows}, {columns})\n"
            f"y = x.sum(axis={axis}) / {rng.randint(2, 9)}\nprint(y.shape, y.dtype)\n```")


def _table(rng: random.Random, header: tuple[str, str, str]) -> str:
    lines = [f"| {' | '.join(header)} |", "|---|---|---|"]
    for index in range(rng.randint(2, 4)):
        lines.append(f"| run {index + 1} | {rng.uniform(0.8, 1):.2f} | {rng.uniform(0.5, 0.8):.2f} |")
    return "\n".join(lines)


def _stem(rng: random.Random, sentences: tuple[str, ...], extra: str) -> str:
    intro = _prose(rng, sentences, max(60, int(rng.gauss(130, 50))))
    question = rng.choice(sentences[-2:])
    return f"{intro}\n\n{extra}\n\n{question}" if extra else f"{intro}\n\n{question}"


def _block(text: str, indent: int) -> str:
    """A YAML literal block scalar's lines at `indent` spaces (blank lines stay empty)."""
    pad = " " * indent
    return "\n".join(pad + line if line else "" for line in text.split("\n"))


def _verify(rng: random.Random, number: int) -> str:
    lines = ["import numpy as np", f"x = np.arange({number % 50 + 4})",
             *(f"x = x * {rng.randint(2, 5)} - {rng.randint(0, 9)}" for _ in range(rng.randint(3, 8))),
             "total = int(x.sum())", "answer = pick_number(total % 4)"]
    return ("    verify:\n      requires: [numpy]\n      code: |\n" + _block("\n".join(lines), 8) + "\n")


def question_yaml(rng: random.Random, question_id: str, number: int) -> str:
    """One question in the shipped files' layout: both languages for text, options and explanation."""
    kind = rng.random()
    extra_en = extra_tr = ""
    if kind < 0.43:
        extra_en = extra_tr = _code(rng)
    elif kind < 0.58:
        extra_en = _table(rng, ("run", "train", "validation"))
        extra_tr = extra_en.replace("| run |", "| çalıştırma |").replace("train", "eğitim").replace(
            "validation", "doğrulama").replace("| run ", "| çalıştırma ")
    options = rng.sample(range(len(EN_OPTIONS)), 4)
    correct = rng.randrange(4)
    option_lines = []
    for position, index in enumerate(options):
        option_lines.append(f'      - en: "{EN_OPTIONS[index]}"\n        tr: "{TR_OPTIONS[index]}"')
        if position == correct:
            option_lines.append("        correct: true")
    explanation_target = max(150, int(rng.gauss(375, 90)))
    return (
        f"  - id: {question_id}\n"
        f"    difficulty: {1 + number % 3}\n"
        f"    seniority: {('junior', 'mid', 'senior')[number % 3]}\n"
        f"    tags: [{', '.join(rng.sample(TAGS, 3))}]\n"
        "    text:\n"
        f"      en: |\n{_block(_stem(rng, EN_SENTENCES, extra_en), 8)}\n"
        f"      tr: |\n{_block(_stem(rng, TR_SENTENCES, extra_tr), 8)}\n"
        "    options:\n" + "\n".join(option_lines) + "\n"
        "    explanation:\n"
        f"      en: |\n{_block(_prose(rng, EN_SENTENCES, explanation_target), 8)}\n"
        f"      tr: |\n{_block(_prose(rng, TR_SENTENCES, explanation_target), 8)}\n"
        + (_verify(rng, number) if rng.random() < 0.75 else "")
    )


def topic_yaml(file_number: int, count: int, rng: random.Random) -> str:
    """A whole topic file of `count` questions with ids unique across files."""
    header = (f"role: ml-engineer\nspecialty: generated-specialty\ntopic: generated-topic-{file_number:02d}\n"
              f"title:\n  en: Generated topic {file_number}\n  tr: Üretilmiş konu {file_number}\nquestions:\n")
    body = "\n".join(question_yaml(rng, f"gen{file_number:02d}-{index:05d}", index) for index in range(count))
    return header + body


def write_bank(folder: Path, questions: int, files: int, seed: int = 7) -> list[Path]:
    """`questions` spread over `files` topic files in `folder`; returns their paths."""
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    per_file = [questions // files + (1 if index < questions % files else 0) for index in range(files)]
    paths = []
    for number, count in enumerate(per_file):
        if count == 0:
            continue
        path = folder / f"generated-{number:02d}.yaml"
        path.write_text(topic_yaml(number, count, rng), encoding="utf-8")
        paths.append(path)
    return paths
