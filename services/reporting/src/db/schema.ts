// Reporting keeps no tables: it reads the other modules' data through report definitions (src/reports/).
export {};
