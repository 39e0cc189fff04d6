-- One database per module (each module owns its data). Runs once, when the postgres volume is first initialised.
CREATE DATABASE membership;
CREATE DATABASE attendance;
CREATE DATABASE giving;
CREATE DATABASE messaging;
CREATE DATABASE content;
CREATE DATABASE doing;
CREATE DATABASE reporting;
