"""Other quiz formats in and out of the bank: OpenTDB JSON, GIFT, Moodle XML and CSV in; Anki, GIFT and
CSV out.

Each reader turns a file into `ImportedQuestion`s (one language, the file's line or index kept for
messages); `bank_file` writes them as a topic file that the bank's own validator has accepted before a
byte is written. Writers take the bank's `Question`s in one language.
"""
